import { describe, expect, it } from '@jest/globals';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { createMergeRequest, getMergeRequest } from '../domain/merge-requests.js';
import type { DiffLimits } from '../domain/ports.js';
import type { Diff, RepoRef } from '../domain/types.js';
import { DiffCache, diffBytes } from './diff-cache.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const LIMITS: DiffLimits = { maxFiles: 3000, maxPatchBytes: 1024 * 1024, maxTotalPatchBytes: 32 * 1024 * 1024 };

const fileOf = (path: string, patch: string) => ({ path, old_path: path, status: 'modified' as const, old_mode: '100644', new_mode: '100644', old_sha: '1'.repeat(40), new_sha: '2'.repeat(40), additions: 1, deletions: 1, binary: false, patch });

/** Counts git-storage diff calls; each answer names the pair it was asked for. */
class CountingGit extends FakeGit {
  diffs: string[] = [];
  failNext = false;
  override async diff(_repoId?: string, from?: string, to?: string): Promise<Diff> {
    this.diffs.push(`${from}..${to}`);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('git-storage unavailable');
    }
    return { files: [fileOf(`${from?.slice(0, 1)}-${to?.slice(0, 1)}.txt`, '@@ -1 +1 @@\n-a\n+b\n')], truncated: false };
  }
}

describe('DiffCache', () => {
  it('when the same two commits are diffed twice, then git-storage is asked once and both answers are equal', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1024 * 1024).wrap(git);
    const first = await cached.diff('r', A, B, LIMITS);
    const second = await cached.diff('r', A, B, LIMITS);
    expect(second).toEqual(first);
    expect(first.files.map((f) => f.path)).toEqual(['a-b.txt']);
    expect(git.diffs).toEqual([`${A}..${B}`]);
  });

  it('when the head, the base, the repository or the limits differ, then it is a new diff', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1024 * 1024).wrap(git);
    await cached.diff('r', A, B, LIMITS);
    expect((await cached.diff('r', A, C, LIMITS)).files[0]!.path).toBe('a-c.txt');
    await cached.diff('r', C, B, LIMITS);
    await cached.diff('s', A, B, LIMITS);
    await cached.diff('r', A, B, { ...LIMITS, maxFiles: 10 });
    expect(git.diffs).toHaveLength(5);
  });

  it('when either side is not a full commit id, then nothing is kept (a name can move)', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1024 * 1024).wrap(git);
    await cached.diff('r', 'main', B, LIMITS);
    await cached.diff('r', 'main', B, LIMITS);
    await cached.diff('r', A, 'b'.repeat(39), LIMITS);
    await cached.diff('r', A, 'b'.repeat(39), LIMITS);
    expect(git.diffs).toHaveLength(4);
  });

  it('when git-storage fails, then the failure is not kept and the next read asks again', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1024 * 1024).wrap(git);
    git.failNext = true;
    await expect(cached.diff('r', A, B, LIMITS)).rejects.toThrow('git-storage unavailable');
    expect((await cached.diff('r', A, B, LIMITS)).files).toHaveLength(1);
    expect(git.diffs).toHaveLength(2);
  });

  it('when reads of one cold diff overlap, then git-storage is asked once', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1024 * 1024).wrap(git);
    const answers = await Promise.all([cached.diff('r', A, B, LIMITS), cached.diff('r', A, B, LIMITS), cached.diff('r', A, B, LIMITS)]);
    expect(answers.map((d) => d.files[0]!.path)).toEqual(['a-b.txt', 'a-b.txt', 'a-b.txt']);
    expect(git.diffs).toHaveLength(1);
  });

  it('when the budget is full, then the least recently used diff goes and the total stays within it', async () => {
    const git = new CountingGit();
    const one = diffBytes({ files: [fileOf('a-b.txt', '@@ -1 +1 @@\n-a\n+b\n')], truncated: false });
    const cache = new DiffCache(4 * (one + 200)); // room for about four, one a quarter at most
    const cached = cache.wrap(git);
    const heads = ['1', '2', '3', '4', '5', '6'].map((c) => c.repeat(40));
    for (const h of heads) await cached.diff('r', A, h, LIMITS);
    expect(cache.sizeBytes).toBeLessThanOrEqual(4 * (one + 200));
    git.diffs = [];
    await cached.diff('r', A, heads[5]!, LIMITS); // the newest is still there
    await cached.diff('r', A, heads[0]!, LIMITS); // the oldest was evicted
    expect(git.diffs).toEqual([`${A}..${heads[0]}`]);
  });

  it('when a diff is larger than a quarter of the budget, then it is served but not kept', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(1000).wrap(git); // a quarter is 250 bytes; one file is more
    await cached.diff('r', A, B, LIMITS);
    await cached.diff('r', A, B, LIMITS);
    expect(git.diffs).toHaveLength(2);
  });

  it('when the budget is 0, then every read goes to git-storage', async () => {
    const git = new CountingGit();
    const cached = new DiffCache(0).wrap(git);
    await cached.diff('r', A, B, LIMITS);
    await cached.diff('r', A, B, LIMITS);
    expect(git.diffs).toHaveLength(2);
  });

  it('when a kept diff is read, then it cannot be changed by a reader', async () => {
    const cached = new DiffCache(1024 * 1024).wrap(new CountingGit());
    const d = await cached.diff('r', A, B, LIMITS);
    expect(Object.isFrozen(d.files) && Object.isFrozen(d.files[0])).toBe(true);
  });
});

describe('merge request detail through the DiffCache', () => {
  const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'read' };
  const bob = { user_id: 'u-bob', username: 'bob' };

  it('when the detail is read again, then the diff is not computed again; after a push to the source, it is the new head\'s diff', async () => {
    const git = new CountingGit();
    git.branches.set('main', A).set('feature', B);
    const deps = { store: new MemoryStore(), git: new DiffCache(1024 * 1024).wrap(git), users: new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }]) };
    await createMergeRequest(deps, repo, bob, { title: 'Add feature', source_branch: 'feature', target_branch: 'main' });
    const first = await getMergeRequest(deps, repo, '1');
    const second = await getMergeRequest(deps, repo, '1');
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(first.diff.map((f) => f.path)).toEqual(['a-b.txt']);
    expect(git.diffs).toEqual([`${A}..${B}`]);

    git.branches.set('feature', C);
    const moved = await getMergeRequest(deps, repo, '1');
    expect(moved).toMatchObject({ source_sha: C, diff: [expect.objectContaining({ path: 'a-c.txt' })] });
    expect(git.diffs).toEqual([`${A}..${B}`, `${A}..${C}`]);
  });
});
