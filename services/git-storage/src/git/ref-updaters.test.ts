import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gitEnv, gitProcessesStarted } from './command.js';
import { GitError, RefMismatchError } from './errors.js';
import { RefUpdaters } from './ref-updaters.js';
import { ZERO_OID } from '@githost/git-records/object-id';

const env = gitEnv({ GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' });
let root: string;
let repoA: string;
let repoB: string;
const commits: Record<string, string> = {};
let updaters: RefUpdaters;

function makeRepo(dir: string): void {
  execFileSync('git', ['init', '-q', '--bare', dir], { env });
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', [`--git-dir=${dir}`, ...args], { env }).toString().trim();
}

function commitIn(dir: string, message: string, parent?: string): string {
  const tree = execFileSync('git', [`--git-dir=${dir}`, 'mktree'], { input: '', env }).toString().trim();
  return git(dir, 'commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message);
}

const refOf = (dir: string, ref: string) => {
  try {
    return git(dir, 'rev-parse', '--verify', '--quiet', ref);
  } catch {
    return ZERO_OID;
  }
};

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-ref-updaters-'));
  repoA = path.join(root, 'a.git');
  repoB = path.join(root, 'b.git');
  makeRepo(repoA);
  makeRepo(repoB);
  commits.a1 = commitIn(repoA, 'a1');
  commits.a2 = commitIn(repoA, 'a2', commits.a1);
  commits.b1 = commitIn(repoB, 'b1');
});

afterEach(() => updaters?.close());

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('RefUpdaters', () => {
  it('when moves follow one another in one repository, then one warm process makes them all', async () => {
    updaters = new RefUpdaters();
    const spawnedBefore = gitProcessesStarted();
    await updaters.update(repoA, 'refs/heads/warm', commits.a1!, ZERO_OID);
    await updaters.update(repoA, 'refs/heads/warm', commits.a2!, commits.a1!);
    await updaters.update(repoA, 'refs/heads/other', commits.a2!, ZERO_OID);
    await updaters.update(repoA, 'refs/heads/other', ZERO_OID, commits.a2!);
    expect(gitProcessesStarted() - spawnedBefore).toBe(1);
    expect(refOf(repoA, 'refs/heads/warm')).toBe(commits.a2);
    expect(refOf(repoA, 'refs/heads/other')).toBe(ZERO_OID);
    expect(updaters.size).toBe(1);
  });

  it('when a move finds a stale old value, then a mismatch, nothing moves, and the next move works on a fresh process', async () => {
    updaters = new RefUpdaters();
    await updaters.update(repoA, 'refs/heads/stale', commits.a1!, ZERO_OID);
    await expect(updaters.update(repoA, 'refs/heads/stale', commits.a2!, commits.a2!)).rejects.toBeInstanceOf(RefMismatchError);
    expect(refOf(repoA, 'refs/heads/stale')).toBe(commits.a1);
    await updaters.update(repoA, 'refs/heads/stale', commits.a2!, commits.a1!);
    expect(refOf(repoA, 'refs/heads/stale')).toBe(commits.a2);
  });

  it('when many moves of one ref are asked at once, then they take turns and each sees the value the one before left', async () => {
    updaters = new RefUpdaters();
    await updaters.update(repoA, 'refs/heads/turns', commits.a1!, ZERO_OID);
    const moves = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? [commits.a2!, commits.a1!] : [commits.a1!, commits.a2!]));
    const outcomes = await Promise.allSettled(moves.map(([next, prev]) => updaters.update(repoA, 'refs/heads/turns', next!, prev!)));
    expect(outcomes.map((o) => o.status)).toEqual(Array(10).fill('fulfilled'));
    expect(refOf(repoA, 'refs/heads/turns')).toBe(commits.a1);
  });

  it('when the process is killed between moves, then the next move starts another', async () => {
    updaters = new RefUpdaters();
    await updaters.update(repoB, 'refs/heads/k', commits.b1!, ZERO_OID);
    updaters.forget(repoB);
    expect(updaters.size).toBe(0);
    await updaters.update(repoB, 'refs/heads/k', ZERO_OID, commits.b1!);
    expect(refOf(repoB, 'refs/heads/k')).toBe(ZERO_OID);
  });

  it('when the cap is reached, then the least recently used idle process ends', async () => {
    updaters = new RefUpdaters({ maxProcesses: 1 });
    await updaters.update(repoA, 'refs/heads/cap', commits.a1!, ZERO_OID);
    await updaters.update(repoB, 'refs/heads/cap', commits.b1!, ZERO_OID);
    expect(updaters.size).toBe(1);
    await updaters.update(repoA, 'refs/heads/cap', ZERO_OID, commits.a1!);
    expect(refOf(repoA, 'refs/heads/cap')).toBe(ZERO_OID);
    expect(refOf(repoB, 'refs/heads/cap')).toBe(commits.b1);
  });

  it('when a process stays idle past its time, then it ends', async () => {
    updaters = new RefUpdaters({ idleTtlMs: 100 });
    await updaters.update(repoA, 'refs/heads/idle', commits.a1!, ZERO_OID);
    expect(updaters.size).toBe(1);
    for (let i = 0; i < 50 && updaters.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(updaters.size).toBe(0);
  });

  it('when a ref name holds a space or a line break, then it is refused before git sees a line of it', async () => {
    updaters = new RefUpdaters();
    const spawnedBefore = gitProcessesStarted();
    await expect(updaters.update(repoA, 'refs/heads/x\nupdate refs/heads/y', commits.a1!, ZERO_OID)).rejects.toBeInstanceOf(GitError);
    await expect(updaters.update(repoA, 'refs/heads/x y', commits.a1!, ZERO_OID)).rejects.toBeInstanceOf(GitError);
    expect(gitProcessesStarted()).toBe(spawnedBefore);
    expect(refOf(repoA, 'refs/heads/y')).toBe(ZERO_OID);
  });
});
