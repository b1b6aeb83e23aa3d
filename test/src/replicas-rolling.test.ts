import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { waitFor } from '@githost/test-support';
import { api, createRepo, createUser, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * A rolling restart of replicas behind haproxy, which keeps connections alive
 * (docs/decisions/replicas.md#keep-alive): the second gateway, browse, web, webhooks and accounts
 * each stopped with SIGTERM in turn while reads and writes keep coming over kept-alive connections.
 * Each drains (not ready for the GITHOST_SHUTDOWN_DELAY_MS the launcher gives replicas, then closes)
 * and exits; the other serves.
 */
let gh: TestGithost;
let alice: TestUser;

beforeAll(async () => {
  gh = await startTestGithost({ backend: 'real', replicas: 2 });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'demo');
}, 300_000);

afterAll(async () => {
  await gh?.stop();
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('replicas stopped one by one with SIGTERM', () => {
  it('when the second of each replica is stopped in turn under reads and writes, then every answer is a success and every write is made once', async () => {
    const victims = ['gateway 2', 'browse 2', 'web 2', 'webhooks 2', 'accounts 2'].map((name) => {
      const found = gh.processes!.find((p) => p.name === name);
      if (!found) throw new Error(`no process ${name}: ${gh.processes!.map((p) => p.name).join(', ')}`);
      return found;
    });
    const failures: string[] = [];
    const made: number[] = [];
    let running = true;
    let n = 0;
    const load = (async () => {
      while (running) {
        const i = n++;
        const [user, hooks, page, created] = await Promise.all([
          api(gh, 'GET', '/api/user', { token: alice.token }),
          api(gh, 'GET', '/api/repos/alice/demo/webhooks', { token: alice.token }),
          fetch(`${gh.url}/alice/demo`, { headers: { accept: 'text/html' } }).then(async (res) => ({ status: res.status, body: await res.text() })),
          api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: alice.token, body: { url: `https://example.com/hook-${i}` } }),
        ]).catch((err: Error) => {
          failures.push(`round ${i}: ${String((err.cause as Error | undefined)?.message ?? err.message)}`);
          return [];
        });
        for (const [what, res] of [['user', user], ['hooks', hooks], ['page', page]] as const) if (res && res.status !== 200) failures.push(`round ${i} ${what}: ${res.status}`);
        if (created?.status === 201) made.push(i);
        else if (created) failures.push(`round ${i} POST: ${created.status}`);
      }
    })();
    const windows: string[] = [];
    for (const victim of victims) {
      const at = Date.now();
      process.kill(victim.pid, 'SIGTERM');
      await waitFor(() => !alive(victim.pid), `${victim.name} exited`, 30_000);
      windows.push(`${victim.name} ${Date.now() - at} ms`);
    }
    running = false;
    await load;
    process.stdout.write(`SIGTERM to exit: ${windows.join(', ')}; ${n} rounds of 3 reads and a write\n`);
    expect(failures).toEqual([]);
    expect(n).toBeGreaterThan(victims.length);
    // Each write made once: as many webhooks as 201s, one per round's URL.
    const listed = await api(gh, 'GET', '/api/repos/alice/demo/webhooks', { token: alice.token });
    expect(listed.status).toBe(200);
    const urls = (listed.body as Array<{ url: string }>).map((h) => h.url).sort();
    expect(urls).toEqual(made.map((i) => `https://example.com/hook-${i}`).sort());
  }, 300_000);
});
