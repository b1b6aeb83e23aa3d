import { beforeEach, describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { BASE, FakeUsers, gitWithFeature, MemoryStore, SRC, type FakeGit } from '../../test/support/in-memory.js';
import { mergeMergeRequest, type MergeContext, type MergeDeps } from './merge.js';
import { createMergeRequest } from './merge-requests.js';
import type { RepoRef } from './types.js';

const TGT = 't'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const ctx: MergeContext = { repo, caller: { user_id: 'u-bob', username: 'bob' }, requestId: 'req-1' };

let store: MemoryStore;
let git: FakeGit;
let kicks: number;
let deps: MergeDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message, ...(e.details ?? {}) }));

beforeEach(async () => {
  store = new MemoryStore();
  git = gitWithFeature();
  kicks = 0;
  deps = { store, git, users: new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }]), relay: { kick: () => void kicks++ }, now: () => 1_700_000_000_500 };
  await createMergeRequest(deps, repo, ctx.caller, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
  kicks = 0; // the create kicked the relay for its `opened` event
});

describe('merge procedure (seed §4)', () => {
  it('when the caller lacks write access, then step 1 validation message before anything else', async () => {
    expect(await rejection(mergeMergeRequest(deps, { ...ctx, repo: { ...repo, permission: 'read' } }, '99'))).toEqual({ kind: 'validation', message: 'You do not have write access to this repository' });
  });

  it('when anonymous, then 401', async () => {
    expect((await rejection(mergeMergeRequest(deps, { ...ctx, caller: null }, '1')))?.kind).toBe('unauthenticated');
  });

  it('when the number is unknown, then 404 (step 2)', async () => {
    expect(await rejection(mergeMergeRequest(deps, ctx, '5'))).toEqual({ kind: 'not_found', message: 'Merge request #5 not found' });
  });

  it('when the merge request is not open, then 409 `Merge request is not open` and nothing changes', async () => {
    store.mrs[0]!.state = 'merged';
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'Merge request is not open' });
    expect(git.updates).toEqual([]);
  });

  it('when the source branch is gone, then 404 `Source branch not found: <name>` and the claim is released', async () => {
    git.branches.delete('feature');
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'not_found', message: 'Source branch not found: feature' });
    expect(store.intents.size).toBe(0);
  });

  it('when both branches are gone, then the source is reported first (step 3 order)', async () => {
    git.branches.clear();
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Source branch not found: feature');
  });

  it('when the target branch is gone, then 404 `Target branch not found: <name>`', async () => {
    git.branches.delete('main');
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'not_found', message: 'Target branch not found: main' });
  });

  it('when the target tip is an ancestor of the source tip, then fast-forward to the source tip (step 4)', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
    expect(git.branches.get('main')).toBe(SRC);
    expect(git.updates).toEqual([{ ref: 'refs/heads/main', newOid: SRC, oldOid: BASE, context: { owner: 'alice', name: 'proj', pusher: 'bob', requestId: 'req-1' } }]);
    expect(git.written).toEqual([]);
  });

  it('when the target tip equals the source tip, then fast-forward without moving the ref', async () => {
    git.branches.set('main', SRC);
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
    expect(git.updates).toEqual([]);
    expect(store.mrs[0]!.state).toBe('merged');
  });

  it('when the target moved on, then a merge commit with parents (target, source), the merger signature and the message (step 5)', async () => {
    git.commit(TGT, BASE);
    git.branches.set('main', TGT);
    const result = await mergeMergeRequest(deps, ctx, '1');
    expect(result.strategy).toBe('merge-commit');
    const sig = { name: 'bob', email: 'bob@example.com', timestamp: 1_700_000_000 };
    expect(git.written).toEqual([{ ours: TGT, theirs: SRC, author: sig, committer: sig, message: "Merge branch 'feature' into main\n" }]);
    expect(git.branches.get('main')).toBe(result.sha);
    expect(git.updates[0]).toMatchObject({ oldOid: TGT, newOid: result.sha });
  });

  it('when the merger has no user record, then author and committer are `unknown`', async () => {
    git.commit(TGT, BASE);
    git.branches.set('main', TGT);
    await mergeMergeRequest(deps, { ...ctx, caller: { user_id: null, username: 'admin' } }, '1');
    expect(git.written[0]!.author).toEqual({ name: 'unknown', email: 'unknown', timestamp: 1_700_000_000 });
    expect(store.mrs[0]!.merged_by).toBeNull();
  });

  it('when merged, then state, merged_sha, merged_by, updated_at, merge_mr activity and the seed §6 event, and the relay is kicked', async () => {
    const before = store.mrs[0]!.updated_at;
    await mergeMergeRequest(deps, ctx, '1');
    const mr = store.mrs[0]!;
    expect(mr).toMatchObject({ state: 'merged', merged_sha: SRC, merged_by: 'u-bob' });
    expect(mr.updated_at > before).toBe(true);
    expect(store.activity.at(-1)).toMatchObject({ action: 'merge_mr', user_id: 'u-bob', data: { mr_number: 1, mr_title: 'Feature', merged_sha: SRC } });
    // the create wrote its `opened` event first (CONTRACT §9); the merge adds exactly one
    expect(store.outbox.map((e) => (e.payload as { action: string }).action)).toEqual(['opened', 'merged']);
    const event = store.outbox[1]!;
    expect(event).toMatchObject({ kind: 'merge_request', occurred_at: mr.updated_at, repository: { id: 'r1', owner: 'alice', name: 'proj' }, request_id: 'req-1' });
    expect(event.payload).toEqual({
      event: 'merge_request',
      action: 'merged',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'alice' },
      merge_request: { number: 1, title: 'Feature', state: 'merged' },
    });
    expect(kicks).toBe(1);
    expect(store.intents.size).toBe(0);
  });

  it('when the merge conflicts, then 409 `Merge conflict` with the paths and nothing changed (CONTRACT §6)', async () => {
    git.commit(TGT, BASE);
    git.branches.set('main', TGT);
    git.conflicts = ['a.txt', 'b.txt'];
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'Merge conflict', conflicts: ['a.txt', 'b.txt'] });
    expect(git.branches.get('main')).toBe(TGT);
    expect(store.mrs[0]!.state).toBe('open');
    expect(store.intents.size).toBe(0);
  });

  it('when a push moves the target during the merge, then 409 `Target branch changed; retry the merge` and the pushed commit stays', async () => {
    git.beforeUpdate = () => void git.branches.set('main', TGT);
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'Target branch changed; retry the merge' });
    expect(git.branches.get('main')).toBe(TGT);
    expect(store.mrs[0]!.state).toBe('open');
    git.beforeUpdate = undefined;
    git.commit(TGT, BASE);
    expect((await mergeMergeRequest(deps, ctx, '1')).strategy).toBe('merge-commit');
  });

  it('when 10 merges race, then exactly one succeeds and the others see `Merge request is not open`', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => rejection(mergeMergeRequest(deps, ctx, '1'))));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.filter((r) => r?.message === 'Merge request is not open')).toHaveLength(9);
    expect(git.updates).toHaveLength(1);
  });

  it('when a merge whose process died still holds the claim, then a merge is a 409 naming the merge in progress, never `not open` while it reads open', async () => {
    await store.claimMerge({ mr_id: store.mrs[0]!.id, repo, merger_id: 'u-dead', request_id: 'req-dead' });
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'A merge of this merge request is in progress; retry shortly' });
    expect([store.mrs[0]!.state, git.updates]).toEqual(['open', []]);
  });

  it('when the merge holding the claim completes while another waits, then the other sees `Merge request is not open`', async () => {
    await store.claimMerge({ mr_id: store.mrs[0]!.id, repo, merger_id: 'u-other', request_id: 'req-other' });
    const loser = rejection(mergeMergeRequest(deps, ctx, '1'));
    await new Promise((r) => setTimeout(r, 150));
    await store.completeMerge({ mr_id: store.mrs[0]!.id, merged_sha: SRC, merged_by: 'u-other', event: () => ({}) as never });
    expect(await loser).toEqual({ kind: 'conflict', message: 'Merge request is not open' });
  });

  it('when the ref moves, then the claim already holds the planned move recovery relies on, and nothing was claimed while planning', async () => {
    const intents: unknown[] = [];
    const realIsAncestor = git.isAncestor.bind(git);
    git.isAncestor = async (...args) => {
      intents.push(store.intents.size);
      return realIsAncestor(...args);
    };
    git.beforeUpdate = () => void intents.push({ ...store.intents.get(store.mrs[0]!.id) });
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
    expect(intents).toEqual([0, expect.objectContaining({ target_ref: 'refs/heads/main', old_oid: BASE, new_oid: SRC, strategy: 'fast-forward', merger_id: 'u-bob', request_id: 'req-1' })]);
  });

  it('when UpdateRef fails but the ref did move, then the merge completes', async () => {
    git.updateFailure = new Error('deadline exceeded');
    git.beforeUpdate = () => void git.branches.set('main', SRC);
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
    expect(store.mrs[0]!.state).toBe('merged');
  });

  it('when UpdateRef fails and the branch cannot be read either, then 503 and the intent is left to recovery, no longer refreshed', async () => {
    git.updateFailure = new AppError('unavailable', 'upstream unavailable');
    // git-storage gone from the ref move on: the move's outcome cannot be read.
    git.beforeUpdate = () => void (git.resolveBranch = () => Promise.reject(new AppError('unavailable', 'upstream unavailable')));
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toMatchObject({ kind: 'unavailable', message: 'Merge outcome unknown; it will be completed or undone shortly' });
    expect([[...store.intents.keys()], [...store.leftForRecovery]]).toEqual([[store.mrs[0]!.id], [store.mrs[0]!.id]]);
  });

  it('when the ref moved but the completion could not be written, then the error is returned and the intent is left to recovery', async () => {
    store.completeMergeOnMove = async (_c, moved) => {
      await moved;
      throw new AppError('unavailable', 'database unavailable');
    };
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.kind).toBe('unavailable');
    expect([git.branches.get('main'), [...store.intents.keys()], [...store.leftForRecovery]]).toEqual([SRC, [store.mrs[0]!.id], [store.mrs[0]!.id]]);
    expect(store.mrs[0]!.state).toBe('open');
  });

  it('when UpdateRef fails and the ref did not move, then the error is returned and the claim released', async () => {
    git.updateFailure = new AppError('unavailable', 'upstream unavailable');
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.kind).toBe('unavailable');
    expect(store.intents.size).toBe(0);
    expect(store.mrs[0]!.state).toBe('open');
  });
});

describe('merge with ResolveMergeTips (tips and ancestry in one git-storage call)', () => {
  let asked: string[];
  beforeEach(() => {
    asked = [];
    const { resolveBranch, isAncestor } = { resolveBranch: git.resolveBranch.bind(git), isAncestor: git.isAncestor.bind(git) };
    git.resolveBranch = async (...args) => {
      asked.push('resolveBranch');
      return resolveBranch(...args);
    };
    git.isAncestor = async (...args) => {
      asked.push('isAncestor');
      return isAncestor(...args);
    };
    git.mergeTips = async (repoId, source, target) => {
      asked.push('mergeTips');
      const [s, t] = [git.branches.get(source) ?? null, git.branches.get(target) ?? null];
      return { source: s, target: t, targetInSource: s !== null && t !== null && (await isAncestor(repoId, t, s)) };
    };
  });

  it('when the target tip is an ancestor of the source tip, then fast-forward, asked in one call', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
    expect(git.updates).toMatchObject([{ ref: 'refs/heads/main', newOid: SRC, oldOid: BASE }]);
    expect(asked).toEqual(['mergeTips']);
  });

  it('when the target moved on, then a merge commit on (target, source)', async () => {
    git.commit(TGT, BASE);
    git.branches.set('main', TGT);
    const result = await mergeMergeRequest(deps, ctx, '1');
    expect(result.strategy).toBe('merge-commit');
    expect(git.written[0]).toMatchObject({ ours: TGT, theirs: SRC });
    expect(git.updates[0]).toMatchObject({ oldOid: TGT, newOid: result.sha });
    expect(asked).toEqual(['mergeTips']);
  });

  it('when a branch is gone, then the same 404s, the source reported first', async () => {
    git.branches.clear();
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Source branch not found: feature');
    git.branches.set('feature', SRC);
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Target branch not found: main');
    expect(store.intents.size).toBe(0);
  });
});
