import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { InProcessEventBus, type EventEnvelope } from '@githost/bus';
import { waitFor } from '@githost/test-support';
import { cleanupWorkdirs, createTestRepository, gitRunning, identityHeaderArgs, makeWorkdir, startTestStorage, testGitEnv, writerIdentity, type TestStorage } from '../src/testing.js';

/** docs/decisions/many-refs-push.md: a push of 10,000 new branches, each on a commit of its own. */
const REFS = Number(process.env.MANY_REFS ?? 10_000);
const ID = 'many-refs';
let s: TestStorage;
let source: string;
/** Every event the bus carried, as its consumers get them (the journal relay publishes them). */
const published: EventEnvelope[] = [];

const branch = (i: number) => `refs/heads/b${String(i).padStart(5, '0')}`;

beforeAll(async () => {
  const bus = new InProcessEventBus();
  await bus.subscribe('many-refs-test', ['push'], async (e) => {
    published.push(e);
  });
  s = await startTestStorage({ bus });
  await createTestRepository(s, ID);
  // A chain of REFS commits, branch i on commit i: every branch new, every tip a commit of its own.
  source = await makeWorkdir();
  execFileSync('git', ['init', '-q', source], { env: testGitEnv() });
  const lines: string[] = [];
  for (let i = 1; i <= REFS; i++) {
    lines.push(`commit ${branch(i)}`, `mark :${i}`, `committer T <t@example.com> ${1_700_000_000 + i} +0000`, `data ${`c${i}`.length}`, `c${i}`);
    if (i > 1) lines.push(`from :${i - 1}`);
    lines.push('M 644 inline f.txt', `data ${String(i).length + 1}`, String(i), '');
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: source, input: lines.join('\n') + '\n', env: testGitEnv() });
}, 300_000);

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

function healthz(): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(`http://127.0.0.1:${s.httpPort}/healthz`, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

describe('a push of many refs', () => {
  it('when 10,000 new branches are pushed at once, then every ref lands, the bus carries one push event per ref and nothing else, and a small request answers while it runs', async () => {
    const headers = identityHeaderArgs(writerIdentity(ID), s.secret);
    const order: string[] = [];
    const push = new Promise<number>((resolve, reject) => {
      const child = spawn('git', [...headers, 'push', '-q', '--mirror', `http://127.0.0.1:${s.httpPort}/alice/${ID}.git`], { cwd: source, env: testGitEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      child.on('error', reject);
      child.on('close', (code) => {
        order.push('push ended');
        if (code === 0) resolve(code);
        else reject(new Error(`push failed (${code}): ${stderr}`));
      });
    });
    // Once receive-pack runs, the service answers another request before the push is over. git's
    // HTTP client matches every refspec against every ref before it sends the pack (quadratic:
    // docs/decisions/many-refs-push.md#the-baseline), minutes on a loaded machine: wait as long.
    const ended = push.then(() => 'push ended first', (err: Error) => `push failed: ${err.message}`);
    expect(await Promise.race([gitRunning('receive-pack', s.repoPath(ID), 600_000).then(() => 'receive-pack running'), ended])).toBe('receive-pack running');
    const status = await healthz();
    order.push('healthz answered');
    await push;
    expect(status).toBe(200);
    expect(order).toEqual(['healthz answered', 'push ended']);

    const refs = execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'for-each-ref', '--format=%(refname)'], { env: testGitEnv() }).toString().trim().split('\n');
    expect(refs.length).toBe(REFS);
    // One event per ref, none lost and none twice (CONTRACT §9 "Fired once per updated ref").
    await waitFor(() => published.length >= REFS, `${REFS} push events on the bus`, 600_000);
    const events = published;
    expect(events.length).toBe(REFS);
    expect(new Set(events.map((e) => e.id)).size).toBe(REFS);
    expect(new Set(events.map((e) => (e.payload as { ref: string }).ref))).toEqual(new Set(refs));
    // Each published event leaves the journal once its slice was published: nothing stays behind.
    await waitFor(async () => (await s.service.journal.size()) === 0, 'the journal emptied', 600_000);
    const last = events.find((e) => (e.payload as { ref: string }).ref === branch(REFS))!.payload as { created: boolean; commits: Array<{ id: string; message: string }> };
    expect(last.created).toBe(true);
    // The 20 newest commits new to the repository, oldest first, as for a push of one branch.
    expect(last.commits.map((c) => c.message.trim())).toEqual(Array.from({ length: 20 }, (_, i) => `c${REFS - 19 + i}`));
    const first = events.find((e) => (e.payload as { ref: string }).ref === branch(1))!.payload as { commits: Array<{ message: string }> };
    expect(first.commits.map((c) => c.message.trim())).toEqual(['c1']);
  }, 1_200_000);
});
