/**
 * git-storage as its own process (dist/main.js), killed with SIGKILL at the worst instants of a
 * push: after the ref moved but before the push was confirmed and journaled, and after the push
 * was prepared but before the ref moved. Restarted on the same DATA_DIR, it journals the first
 * push's event exactly once and none for the second (services/git-storage/README.md#push-events-survive-a-kill).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { FileJournal } from '@githost/bus';
import { encodeIdentity, type Identity } from '@githost/identity';
import { TEST_PAUSE_ENV } from '../src/events/ref-intents.js';
import { ZERO_OID } from '@githost/git-records/object-id';
import { repositoryPath } from '../src/repository-path.js';
import { cleanupWorkdirs, commitAll, git, makeWorkdir, startStorageProcess, startStorageProcessWithRepository, stopProcess, writeFiles, type FakeRefPolicies } from '../src/testing.js';

const ID = 'repo-kill';
const secret = `test-secret-${randomBytes(12).toString('hex')}`;
let dataDir: string;
let policies: FakeRefPolicies;
let ports: { http: number; grpc: number };
let running: ChildProcess | undefined;

async function until<T>(probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startStorage(extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
  running = await startStorageProcess({ dataDir, httpPort: ports.http, grpcPort: ports.grpc, secret, accountsAddress: policies.address, env: extraEnv });
  return running;
}

function headerArgs(): string[] {
  const identity: Identity = {
    principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u-alice' },
    request_id: 'req-kill',
    issued_at: Date.now(),
  };
  return Object.entries(encodeIdentity(identity, secret)).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
}

/**
 * Pushes `main` while git-storage runs with the hook pausing in `phase`; once paused, kills
 * git-storage (SIGKILL), then the paused hook, and waits until receive-pack has let go of the ref.
 */
async function pushKilledAt(phase: 'prepared' | 'committed', work: string): Promise<void> {
  const hold = path.join(dataDir, `..`, `hold-${phase}-${randomBytes(4).toString('hex')}`);
  const child = await startStorage({ [TEST_PAUSE_ENV]: `${phase} ${hold}` });
  const push = git(work, ...headerArgs(), 'push', `http://127.0.0.1:${ports.http}/alice/demo.git`, 'main').then(
    () => 'pushed',
    () => 'failed',
  );
  const hookPid = await until(async () => {
    const text = existsSync(hold) ? (await readFile(hold, 'utf8')).trim() : '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  });
  await stopProcess(child, 'SIGKILL');
  process.kill(hookPid, 'SIGKILL');
  await rm(hold, { force: true });
  expect(await push).toBe('failed');
  await until(() => (existsSync(path.join(repositoryPath(dataDir, ID), 'refs/heads/main.lock')) ? undefined : true));
}

async function journaled(): Promise<Array<{ id: string; kind: string; payload: Record<string, unknown> }>> {
  return (await new FileJournal(path.join(dataDir, 'journal')).pending()) as never;
}

beforeAll(async () => {
  ({ dataDir, policies, ports, child: running } = await startStorageProcessWithRepository('githost-kill-', secret, ID));
  await stopProcess(running!, 'SIGTERM');
});

afterAll(async () => {
  if (running) await stopProcess(running, 'SIGKILL');
  await policies.close();
  await rm(path.dirname(dataDir), { recursive: true, force: true });
  await cleanupWorkdirs();
});

describe('git-storage killed mid-push', () => {
  it('when killed after the ref moved but before the push was confirmed, then after a restart the push event is journaled exactly once; when killed after the push was prepared, then no event', async () => {
    const work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'one\n' });
    const c1 = await commitAll(work, 'first\n');
    const bare = repositoryPath(dataDir, ID);

    await pushKilledAt('committed', work);
    expect((await git(bare, 'rev-parse', 'refs/heads/main')).trim()).toBe(c1);
    expect(await journaled()).toEqual([]);
    expect(await readdir(path.join(dataDir, 'pending'))).toHaveLength(1);

    // The restart settles the record; it also runs the next push, killed before its ref moved.
    await writeFiles(work, { 'b.txt': 'two\n' });
    const c2 = await commitAll(work, 'second\n');
    await pushKilledAt('prepared', work);
    expect((await git(bare, 'rev-parse', 'refs/heads/main')).trim()).toBe(c1);
    expect(await readdir(path.join(dataDir, 'pending'))).toHaveLength(1);

    await stopProcess(await startStorage(), 'SIGTERM');
    const events = await journaled();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'push',
      payload: { event: 'push', ref: 'refs/heads/main', before: ZERO_OID, after: c1, created: true, deleted: false, forced: false, sender: { username: 'alice' } },
    });
    expect((events[0]!.payload.commits as Array<{ id: string }>).map((c) => c.id)).toEqual([c1]);
    expect(events.some((e) => e.payload.after === c2)).toBe(false);
    expect(await readdir(path.join(dataDir, 'pending'))).toEqual([]);
    // It was the repository's first branch: the restart told accounts (services/accounts/README.md#default-branch).
    expect(policies.adoptions()).toEqual([`${ID} main`]);
  });
});
