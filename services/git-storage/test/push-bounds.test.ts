import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { encodeIdentity } from '@githost/identity';
import { cleanupWorkdirs, commitAll, createTestRepository, git, identityHeaderArgs, makeWorkdir, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

const MiB = 1024 * 1024;
let defaults: TestStorage;
let small: TestStorage;
let quota: TestStorage;

/** Pushes through smart HTTP; resolves git's stderr on failure, undefined on success. */
async function push(s: TestStorage, id: string, work: string, ...refspecs: string[]): Promise<string | undefined> {
  const headers = identityHeaderArgs(writerIdentity(id), s.secret);
  try {
    await git(work, ...headers, 'push', `http://127.0.0.1:${s.httpPort}/alice/${id}.git`, ...refspecs);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const refsOf = (s: TestStorage, id: string) => execFileSync('git', [`--git-dir=${s.repoPath(id)}`, 'for-each-ref', '--format=%(objectname) %(refname)'], { env: testGitEnv() }).toString().trim();
const objectCount = (s: TestStorage, id: string) => execFileSync('git', [`--git-dir=${s.repoPath(id)}`, 'cat-file', '--batch-all-objects', '--batch-check'], { env: testGitEnv() }).toString().trim();
const plumbing = (work: string, input: string, ...args: string[]) => execFileSync('git', args, { cwd: work, input, env: testGitEnv() }).toString().trim();

async function repository(s: TestStorage, id: string): Promise<string> {
  await createTestRepository(s, id);
  const work = await makeWorkdir();
  await writeFiles(work, { 'README.md': 'hello\n' });
  await commitAll(work, 'first');
  expect(await push(s, id, work, 'main')).toBeUndefined();
  await drain(s);
  return work;
}

async function drain(s: TestStorage): Promise<unknown[]> {
  const events = await s.service.journal.pending();
  for (const e of events) await s.service.journal.remove(e.id);
  return events.map((e) => e.payload);
}

beforeAll(async () => {
  [defaults, small, quota] = await Promise.all([
    startTestStorage(),
    startTestStorage({ pushMaxBytes: MiB, pushMaxFileBytes: 256 * 1024, pushIdleTimeoutMs: 500 }),
    startTestStorage({ repositoryQuotaBytes: 2 * MiB }),
  ]);
});

afterAll(async () => {
  await Promise.all([defaults?.stop(), small?.stop(), quota?.stop()]);
  await cleanupWorkdirs();
});

describe('push bounds', () => {
  it('when a push is larger than PUSH_MAX_BYTES, then git refuses it with its own message, nothing moves and no event is journaled', async () => {
    const work = await repository(small, 'too-big');
    const before = refsOf(small, 'too-big');
    const objects = objectCount(small, 'too-big');
    // Random bytes do not compress: 2 x 200 KiB files (each under the file limit) per commit, 3 commits.
    for (let i = 0; i < 3; i++) {
      await writeFiles(work, { [`a${i}.bin`]: randomBytes(200 * 1024), [`b${i}.bin`]: randomBytes(200 * 1024) });
      await commitAll(work, `bulk ${i}`);
    }
    const err = await push(small, 'too-big', work, 'main');
    expect(err).toContain('remote: fatal: pack exceeds maximum allowed size');
    expect(refsOf(small, 'too-big')).toBe(before);
    expect(objectCount(small, 'too-big')).toBe(objects);
    expect(await drain(small)).toEqual([]);
  });

  it('when a pushed file is over PUSH_MAX_FILE_BYTES, then the push is refused with GitHub\'s message naming the file; a file under it is accepted', async () => {
    const work = await repository(small, 'big-file');
    const before = refsOf(small, 'big-file');
    await writeFiles(work, { 'assets/big.bin': Buffer.alloc(300 * 1024, 'x'), 'ok.bin': Buffer.alloc(200 * 1024, 'y') });
    await commitAll(work, 'big');
    const err = await push(small, 'big-file', work, 'main');
    expect(err).toContain('remote: error: File assets/big.bin is 0.29 MB; this exceeds the file size limit of 0.25 MB');
    expect(err).not.toContain('ok.bin');
    expect(err).toContain('[remote rejected] main -> main (pre-receive hook declined)');
    expect(refsOf(small, 'big-file')).toBe(before);
    expect(await drain(small)).toEqual([]);

    await git(work, 'rm', '-q', 'assets/big.bin');
    await git(work, 'commit', '-q', '--amend', '-m', 'small only');
    expect(await push(small, 'big-file', work, 'main')).toBeUndefined();
    expect(await drain(small)).toMatchObject([{ ref: 'refs/heads/main', after: (await git(work, 'rev-parse', 'HEAD')).trim() }]);

    // Only files count: a commit object over the limit (a 300 KiB message) is not a file.
    await writeFiles(work, { 'message.txt': `${'a long message line\n'.repeat(15_000)}` });
    await git(work, 'commit', '-q', '--allow-empty', '-F', 'message.txt');
    expect(Number((await git(work, 'cat-file', '-s', 'HEAD')).trim())).toBeGreaterThan(256 * 1024);
    expect(await push(small, 'big-file', work, 'main')).toBeUndefined();
    expect(await drain(small)).toMatchObject([{ ref: 'refs/heads/main', after: (await git(work, 'rev-parse', 'HEAD')).trim() }]);
  });

  it('when a 101 MiB file is pushed under the default limit, then it is refused: "File big.bin is 101.00 MB; this exceeds the file size limit of 100.00 MB"', async () => {
    const work = await repository(defaults, 'huge-file');
    const before = refsOf(defaults, 'huge-file');
    await writeFiles(work, { 'big.bin': Buffer.alloc(101 * MiB, 'githost ') });
    await commitAll(work, 'huge');
    const err = await push(defaults, 'huge-file', work, 'main');
    expect(err).toContain('remote: error: File big.bin is 101.00 MB; this exceeds the file size limit of 100.00 MB');
    expect(refsOf(defaults, 'huge-file')).toBe(before);
    expect(await drain(defaults)).toEqual([]);
  }, 120_000);

  it('when a tree holds .git/config or a ".." entry, then git\'s fsck refuses the push, nothing moves and no event is journaled', async () => {
    const work = await repository(defaults, 'fsck');
    const before = refsOf(defaults, 'fsck');
    const objects = objectCount(defaults, 'fsck');
    const blob = plumbing(work, '[core]\n\tfsmonitor = touch /tmp/pwned\n', 'hash-object', '-w', '--stdin');
    const config = plumbing(work, `100644 blob ${blob}\tconfig\n`, 'mktree');
    const head = (await git(work, 'rev-parse', 'HEAD')).trim();
    for (const [name, check] of [
      ['.git', "hasDotgit: contains '.git'"],
      ['..', "hasDotdot: contains '..'"],
    ] as const) {
      const tree = plumbing(work, `040000 tree ${config}\t${name}\n`, 'mktree');
      const commit = plumbing(work, 'evil\n', 'commit-tree', tree, '-p', head);
      const err = await push(defaults, 'fsck', work, `${commit}:refs/heads/main`);
      expect(err).toContain(check);
      expect(err).toContain('remote: fatal: fsck error in packed object');
      expect(refsOf(defaults, 'fsck')).toBe(before);
      expect(objectCount(defaults, 'fsck')).toBe(objects);
    }
    expect(await drain(defaults)).toEqual([]);
  });

  it('when a push would take the repository past REPOSITORY_QUOTA_BYTES, then it is refused naming the quota; a small push is accepted', async () => {
    const work = await repository(quota, 'quota');
    const before = refsOf(quota, 'quota');
    await writeFiles(work, { 'data.bin': randomBytes(3 * MiB) });
    await commitAll(work, 'too much');
    const err = await push(quota, 'quota', work, 'main');
    expect(err).toMatch(/remote: error: push refused: the repository would take \d+\.\d\d MB, over its quota of 2\.00 MB/);
    expect(refsOf(quota, 'quota')).toBe(before);
    expect(await drain(quota)).toEqual([]);

    await git(work, 'rm', '-q', 'data.bin');
    await writeFiles(work, { 'small.txt': 'small\n' });
    await git(work, 'add', 'small.txt');
    await git(work, 'commit', '-q', '--amend', '-m', 'small');
    expect(await push(quota, 'quota', work, 'main')).toBeUndefined();
    expect(await drain(quota)).toHaveLength(1);
  });

  it('when a push sends nothing for PUSH_IDLE_TIMEOUT_MS, then 408 Request timeout, the connection is closed and nothing moves', async () => {
    await repository(small, 'idle');
    const before = refsOf(small, 'idle');
    const head = before.split(' ')[0]!;
    const started = Date.now();
    const outcome = await new Promise<string>((resolve) => {
      const req = http.request({
        host: '127.0.0.1',
        port: small.httpPort,
        method: 'POST',
        path: '/alice/idle.git/git-receive-pack',
        headers: { ...encodeIdentity(writerIdentity('idle'), small.secret), 'Content-Type': 'application/x-git-receive-pack-request' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('close', () => resolve(`${res.statusCode} ${body} (connection: ${res.headers.connection})`));
      });
      req.on('error', (err) => resolve(`connection ended: ${err.message}`));
      // Half of a command section, then silence (the request is never ended).
      const line = `${head} ${'1'.repeat(40)} refs/heads/main\0 report-status\n`;
      req.write(`${(line.length + 4).toString(16).padStart(4, '0')}${line}`);
    });
    const elapsed = Date.now() - started;
    expect(outcome).toBe('408 {"error":"Request timeout"} (connection: close)');
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(5_000);
    expect(refsOf(small, 'idle')).toBe(before);
    expect(await drain(small)).toEqual([]);
  });
});
