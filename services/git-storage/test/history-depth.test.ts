import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { cleanupWorkdirs, commitAll, createTestRepository, git, identityHeaderArgs, makeWorkdir, startTestStorage, testGitEnv, writeFiles, writerIdentity, type TestStorage } from '../src/testing.js';

/** docs/decisions/history-depth.md: what keeps a clone and a push flat as the history grows. */
const ID = 'deep-history';
let s: TestStorage;
let work: string;
let gitDir: string;

const bare = (...args: string[]) => execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env: testGitEnv(), stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const packFiles = () => readdirSync(path.join(gitDir, 'objects', 'pack'));

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  gitDir = s.repoPath(ID);
  work = await makeWorkdir();
  // More objects than receive.unpackLimit (100): receive-pack keeps the push as one pack, as it
  // keeps a repository's first push, without a bitmap.
  for (let round = 0; round < 30; round++) {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`d${round}/f${i}.txt`] = `${round} ${i}\n`;
    await writeFiles(work, files);
    await commitAll(work, `round ${round}`);
  }
  await git(work, ...identityHeaderArgs(writerIdentity(ID), s.secret), 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/${ID}.git`, 'HEAD:refs/heads/main');
  await s.service.context.intents.settled();
}, 300_000);

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('a repository whose history came in one push', () => {
  it('when housekeeping runs after the first push, then the pack gets a reachability bitmap and a commit-graph, and fsck is clean', async () => {
    expect(packFiles().filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expect(packFiles().some((f) => f.endsWith('.bitmap'))).toBe(false);
    await s.service.context.housekeeping.runNow(gitDir);
    const files = packFiles();
    expect(files).toContain('multi-pack-index');
    expect(files.filter((f) => f.startsWith('multi-pack-index-') && f.endsWith('.bitmap'))).toHaveLength(1);
    expect(existsSync(path.join(gitDir, 'objects', 'info', 'commit-graphs', 'commit-graph-chain'))).toBe(true);
    // git finds the bitmap for the branch (as upload-pack does for a clone) and checks every entry
    // against a plain walk: "OK!" only when they agree.
    const check = spawnSync('git', [`--git-dir=${gitDir}`, 'rev-list', '--test-bitmap', 'refs/heads/main'], { env: testGitEnv() });
    expect(check.status).toBe(0);
    expect(check.stderr.toString()).toMatch(/^OK!$/m);
    expect(bare('fsck', '--no-progress', '--no-dangling')).toBe('');
  });
});
