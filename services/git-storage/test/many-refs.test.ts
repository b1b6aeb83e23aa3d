import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { cleanupWorkdirs, createTestRepository, gitRunning, identityHeaderArgs, makeWorkdir, startTestStorage, testGitEnv, writerIdentity, type TestStorage } from '../src/testing.js';

/** docs/decisions/many-refs-push.md: a push of 10,000 new branches, each on a commit of its own. */
const REFS = Number(process.env.MANY_REFS ?? 10_000);
const ID = 'many-refs';
let s: TestStorage;
let source: string;

const branch = (i: number) => `refs/heads/b${String(i).padStart(5, '0')}`;

beforeAll(async () => {
  s = await startTestStorage();
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
  it('when 10,000 new branches are pushed at once, then every ref lands, the push is one journal entry with an event per ref, and a small request answers while it runs', async () => {
    // What was journaled before (none: the repository is new) stays out of the count.
    const journalDir = s.service.journal.dir;
    const entriesOf = () => (existsSync(journalDir) ? readdirSync(journalDir).filter((n) => n.endsWith('.json')) : []);
    const entriesBefore = entriesOf();
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
    // Once receive-pack runs, the service answers another request before the push is over.
    const ended = push.then(() => 'push ended first', (err: Error) => `push failed: ${err.message}`);
    expect(await Promise.race([gitRunning('receive-pack', s.repoPath(ID)).then(() => 'receive-pack running'), ended])).toBe('receive-pack running');
    const status = await healthz();
    order.push('healthz answered');
    await push;
    expect(status).toBe(200);
    expect(order).toEqual(['healthz answered', 'push ended']);

    const refs = execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, 'for-each-ref', '--format=%(refname)'], { env: testGitEnv() }).toString().trim().split('\n');
    expect(refs.length).toBe(REFS);
    const entries = entriesOf().filter((n) => !entriesBefore.includes(n));
    expect(entries).toEqual([expect.stringMatching(/\.batch\.json$/)]);
    const events = await s.service.journal.pending();
    expect(events.length).toBe(REFS);
    expect(new Set(events.map((e) => (e.payload as { ref: string }).ref))).toEqual(new Set(refs));
    const last = events.find((e) => (e.payload as { ref: string }).ref === branch(REFS))!.payload as { created: boolean; commits: Array<{ id: string; message: string }> };
    expect(last.created).toBe(true);
    // The 20 newest commits new to the repository, oldest first, as for a push of one branch.
    expect(last.commits.map((c) => c.message.trim())).toEqual(Array.from({ length: 20 }, (_, i) => `c${REFS - 19 + i}`));
    const first = events.find((e) => (e.payload as { ref: string }).ref === branch(1))!.payload as { commits: Array<{ message: string }> };
    expect(first.commits.map((c) => c.message.trim())).toEqual(['c1']);
  }, 1_200_000);
});
