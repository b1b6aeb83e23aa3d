import { beforeEach, describe, expect, it } from '@jest/globals';
import { AppError, forbidden } from '@githost/errors';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { listMergeRequestCommits } from './commits.js';
import { mergeMergeRequest, type MergeContext, type MergeDeps } from './merge.js';
import { createMergeRequest } from './merge-requests.js';
import { reconcileMergeIntents } from './reconcile.js';
import type { RepoRef } from './types.js';

const BASE = '1'.repeat(40);
const S1 = '2'.repeat(40);
const S2 = '3'.repeat(40);
const TGT = '4'.repeat(40);
const ZERO = '0'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const ctx: MergeContext = { repo, caller: { user_id: 'u-carol', username: 'carol' }, requestId: 'req-1' };

let store: MemoryStore;
let git: FakeGit;
let deps: MergeDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message }));

beforeEach(async () => {
  store = new MemoryStore();
  git = new FakeGit();
  git.commit(BASE);
  git.commit(S1, BASE);
  git.commit(S2, S1);
  git.messages.set(S1, 'First step\n\nwith a body\n').set(S2, 'Second step\n');
  git.branches.set('main', BASE).set('feature', S2);
  const users = new FakeUsers([
    { id: 'u-bob', username: 'bob', email: 'bob@example.com' },
    { id: 'u-carol', username: 'carol', email: 'carol@example.com' },
  ]);
  deps = { store, git, users, relay: { kick: () => undefined }, now: () => 1_700_000_000_000 };
  await createMergeRequest(deps, repo, { user_id: 'u-bob', username: 'bob' }, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
});

const moveTarget = () => {
  git.commit(TGT, BASE);
  git.branches.set('main', TGT);
};

describe('merge options: bad input (400 naming the allowed values, nothing claimed)', () => {
  it.each([
    [{ strategy: 'rebase' }, 'strategy must be one of: merge-commit, squash, fast-forward-only'],
    [{ strategy: 1 }, 'strategy must be one of: merge-commit, squash, fast-forward-only'],
    [{ sha: 'abc' }, 'sha must be a 40-character hex commit id'],
    [{ sha: 40 }, 'sha must be a 40-character hex commit id'],
    [{ commit_title: '' }, 'commit_title must be a non-empty string'],
    [{ commit_title: 'x'.repeat(256) }, 'commit_title must be at most 255 characters'],
    [{ commit_message: false }, 'commit_message must be a string'],
    [{ delete_source_branch: 'yes' }, 'delete_source_branch must be a boolean'],
  ])('when the body is %j, then 400 %s', async (body, message) => {
    expect(await rejection(mergeMergeRequest(deps, ctx, '1', body))).toEqual({ kind: 'validation', message });
    expect(store.mrs[0]!.state).toBe('open');
    expect(store.intents.size).toBe(0);
  });

  it('when the body is empty or not an object, then the seed merge (fast-forward here)', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1', [])).toEqual({ merged: true, sha: S2, strategy: 'fast-forward' });
  });
});

describe('sha guard', () => {
  it('when sha is not the source tip, then 409 `Head branch was modified` and the claim is released', async () => {
    expect(await rejection(mergeMergeRequest(deps, ctx, '1', { sha: S1 }))).toEqual({ kind: 'conflict', message: 'Head branch was modified' });
    expect(store.intents.size).toBe(0);
    expect(git.branches.get('main')).toBe(BASE);
  });

  it('when sha is the source tip (any case), then the merge goes ahead', async () => {
    expect((await mergeMergeRequest(deps, ctx, '1', { sha: S2.toUpperCase() })).sha).toBe(S2);
  });
});

describe('squash', () => {
  it('when squashed, then one commit on the target tip: author the MR author, committer the merger, GitHub default message', async () => {
    moveTarget();
    const result = await mergeMergeRequest(deps, ctx, '1', { strategy: 'squash' });
    expect(result.strategy).toBe('squash');
    expect(git.written[0]).toEqual({
      ours: TGT,
      theirs: S2,
      squash: true,
      author: { name: 'bob', email: 'bob@example.com', timestamp: 1_700_000_000 },
      committer: { name: 'carol', email: 'carol@example.com', timestamp: 1_700_000_000 },
      message: 'Feature (#1)\n\n* First step\n* Second step\n',
    });
    expect(git.parents.get(result.sha)).toEqual([TGT]);
    expect(git.branches.get('main')).toBe(result.sha);
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: result.sha, merged_by: 'u-carol' });
  });

  it('when fast-forward would be possible, then it is still a squash commit', async () => {
    const result = await mergeMergeRequest(deps, ctx, '1', { strategy: 'squash', commit_title: 'Squashed', commit_message: 'Body text' });
    expect(result.strategy).toBe('squash');
    expect(git.written[0]!.message).toBe('Squashed\n\nBody text\n');
  });

  it('when git-storage cannot list the commits, then the message is the title alone', async () => {
    git.compareFailure = new AppError('unavailable', 'Compare is not available yet');
    await mergeMergeRequest(deps, ctx, '1', { strategy: 'squash' });
    expect(git.written[0]!.message).toBe('Feature (#1)\n');
  });

  it('when the history is past git-storage\'s compare budget, then the squash still merges, its message the title alone', async () => {
    git.compareFailure = new AppError('validation', 'Comparison too big: compare commits closer together');
    const result = await mergeMergeRequest(deps, ctx, '1', { strategy: 'squash' });
    expect(result.strategy).toBe('squash');
    expect(git.written[0]!.message).toBe('Feature (#1)\n');
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: result.sha });
  });

  it('when the squash was interrupted after the ref moved, then recovery completes it with the squash commit', async () => {
    moveTarget();
    const original = store.completeMerge.bind(store);
    store.completeMerge = async () => {
      throw new AppError('unavailable', 'database down');
    };
    await expect(mergeMergeRequest(deps, ctx, '1', { strategy: 'squash' })).rejects.toThrow('database down');
    store.completeMerge = original;
    expect([...store.intents.values()][0]).toMatchObject({ strategy: 'squash' });
    const out = await reconcileMergeIntents({ store, relay: deps.relay!, gitOn: () => git }, 0);
    expect(out.completed).toHaveLength(1);
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: git.branches.get('main') });
  });
});

describe('merge-commit and fast-forward-only', () => {
  it('when merge-commit is asked while a fast-forward is possible, then a merge commit anyway (GitHub), with the seed message', async () => {
    const result = await mergeMergeRequest(deps, ctx, '1', { strategy: 'merge-commit' });
    expect(result.strategy).toBe('merge-commit');
    expect(git.parents.get(result.sha)).toEqual([BASE, S2]);
    expect(git.written[0]!.message).toBe("Merge branch 'feature' into main\n");
  });

  it('when commit_title and commit_message are given, then they make the merge commit message', async () => {
    moveTarget();
    await mergeMergeRequest(deps, ctx, '1', { commit_title: 'Merge the feature', commit_message: 'Reviewed by dan' });
    expect(git.written[0]!.message).toBe('Merge the feature\n\nReviewed by dan\n');
  });

  it('when only commit_message is given, then the seed title with that body', async () => {
    moveTarget();
    await mergeMergeRequest(deps, ctx, '1', { strategy: 'merge-commit', commit_message: 'why' });
    expect(git.written[0]!.message).toBe("Merge branch 'feature' into main\n\nwhy\n");
  });

  it('when fast-forward-only and the target is an ancestor, then a fast-forward', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1', { strategy: 'fast-forward-only' })).toEqual({ merged: true, sha: S2, strategy: 'fast-forward' });
  });

  it('when fast-forward-only and the target moved on, then 409 `Fast-forward merge is not possible` and nothing changed', async () => {
    moveTarget();
    expect(await rejection(mergeMergeRequest(deps, ctx, '1', { strategy: 'fast-forward-only' }))).toEqual({ kind: 'conflict', message: 'Fast-forward merge is not possible' });
    expect(git.branches.get('main')).toBe(TGT);
    expect(store.mrs[0]!.state).toBe('open');
    expect(store.intents.size).toBe(0);
  });
});

describe('delete_source_branch', () => {
  it('when asked, then the source is deleted by compare-and-swap from the merged tip and the response says so', async () => {
    const result = await mergeMergeRequest(deps, ctx, '1', { delete_source_branch: true });
    expect(result).toEqual({ merged: true, sha: S2, strategy: 'fast-forward', source_branch_deleted: true });
    expect(git.updates.at(-1)).toMatchObject({ ref: 'refs/heads/feature', newOid: ZERO, oldOid: S2, context: { pusher: 'carol' } });
  });

  it('when protection refuses the deletion, then the merge still succeeded and source_branch_deleted is false', async () => {
    const update = git.updateRef.bind(git);
    git.updateRef = async (repoId, req) => {
      if (req.ref === 'refs/heads/feature') throw forbidden('protected branch feature: deletion not allowed');
      return update(repoId, req);
    };
    const result = await mergeMergeRequest(deps, ctx, '1', { delete_source_branch: true });
    expect(result).toMatchObject({ merged: true, source_branch_deleted: false });
    expect(store.mrs[0]!.state).toBe('merged');
  });

  it('when not asked, then the response has no source_branch_deleted (the seed response)', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1', { delete_source_branch: false })).toEqual({ merged: true, sha: S2, strategy: 'fast-forward' });
    expect(git.branches.get('feature')).toBe(S2);
  });
});

describe('GET .../commits', () => {
  it('when both branches exist, then the source commits not in the target, oldest first, as commit records', async () => {
    const commits = await listMergeRequestCommits(deps, repo, '1');
    expect(commits.map((c) => [c.sha, c.message, c.parents])).toEqual([
      [S1, 'First step\n\nwith a body\n', [BASE]],
      [S2, 'Second step\n', [S1]],
    ]);
  });

  it('when a branch is gone, then an empty list', async () => {
    git.branches.delete('feature');
    expect(await listMergeRequestCommits(deps, repo, '1')).toEqual([]);
  });

  it('when the number is unknown, then 404; when the repository is private and unreadable, then 404 Repository not found', async () => {
    await expect(listMergeRequestCommits(deps, repo, '9')).rejects.toMatchObject({ message: 'Merge request #9 not found' });
    await expect(listMergeRequestCommits(deps, { ...repo, private: true, permission: 'none' }, '1')).rejects.toMatchObject({ message: 'Repository not found' });
  });
});
