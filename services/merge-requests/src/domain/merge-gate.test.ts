import { beforeEach, describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { FakeUsers, gitWithFeature, MemoryStore, SRC, type FakeGit } from '../../test/support/in-memory.js';
import { memoryWorkflow } from '../../test/support/in-memory-workflow.js';
import { mergeMergeRequest, type MergeContext, type MergeDeps } from './merge.js';
import { createMergeRequest, getMergeRequest } from './merge-requests.js';
import { submitReview } from './reviews.js';
import { createStatus } from './statuses.js';
import type { Caller, RepoRef } from './types.js';

const SRC2 = 'c'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const author: Caller = { user_id: 'u-alice', username: 'alice' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };
const carol: Caller = { user_id: 'u-carol', username: 'carol' };
const ctx: MergeContext = { repo, caller: bob, requestId: 'req-1' };

let store: MemoryStore;
let git: FakeGit;
let workflow: ReturnType<typeof memoryWorkflow>;
let deps: MergeDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message, ...(e.details ? { details: e.details } : {}) }));
const review = (who: Caller, event: string, permission: RepoRef['permission'] = 'write', body = 'because') =>
  submitReview({ ...deps, reviews: workflow.reviews }, { ...repo, permission }, who, '1', { event, body }, null);
const status = (state: string, context: string, sha = SRC) => createStatus({ ...deps, statuses: workflow.statuses }, repo, { user_id: 'u-ci', username: 'ci' }, sha, { state, context }, null);
const push = (sha: string, parent: string) => {
  git.commit(sha, parent);
  git.branches.set('feature', sha);
};

beforeEach(async () => {
  store = new MemoryStore();
  git = gitWithFeature();
  workflow = memoryWorkflow();
  const users = new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }]);
  deps = { store, git, users, workflow, relay: { kick: () => undefined }, now: () => 1_700_000_000_000 };
  await createMergeRequest(deps, repo, author, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
});

describe('merge gate (README "Merge gate", merge side)', () => {
  it('when no rule names the target (the default branch keeps only its push defaults), then the merge is the seed one', async () => {
    expect(await mergeMergeRequest(deps, ctx, '1')).toEqual({ merged: true, sha: SRC, strategy: 'fast-forward' });
  });

  it('when a required check has no status, then 409 naming the first missing context in rule order, the claim released and nothing moved', async () => {
    workflow.policy.protect('main', { required_status_checks: ['ci/build', 'ci/lint'] });
    await status('success', 'ci/lint');
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'Required status check "ci/build" is not successful', details: { reason: 'branch_protection' } });
    expect(store.intents.size).toBe(0);
    expect(git.updates).toEqual([]);
    expect(store.mrs[0]!.state).toBe('open');
  });

  it('when the latest status of a required context is failure after a success, then 409; when CI posts success, then the merge goes through', async () => {
    workflow.policy.protect('main', { required_status_checks: ['ci/build'] });
    await status('success', 'ci/build');
    await status('failure', 'ci/build');
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Required status check "ci/build" is not successful');
    await status('success', 'ci/build');
    expect((await mergeMergeRequest(deps, ctx, '1')).sha).toBe(SRC);
  });

  it('when success was posted on an older head, then the check fails on the new head', async () => {
    workflow.policy.protect('main', { required_status_checks: ['ci/build'] });
    await status('success', 'ci/build');
    push(SRC2, SRC);
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Required status check "ci/build" is not successful');
  });

  it('when approvals are required, then 409 with the number until enough writers approve; a reader approval does not count', async () => {
    workflow.policy.protect('main', { required_approvals: 2 });
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: '2 approving reviews required', details: { reason: 'branch_protection' } });
    await review(bob, 'approve');
    await review(carol, 'approve', 'read');
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('2 approving reviews required');
    await review(carol, 'approve', 'admin');
    expect((await mergeMergeRequest(deps, ctx, '1')).sha).toBe(SRC);
  });

  it('when one approval is required and the approval went stale by a push, then 409 `1 approving review required`', async () => {
    workflow.policy.protect('ma*', { required_approvals: 1 });
    await review(bob, 'approve');
    push(SRC2, SRC);
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: '1 approving review required', details: { reason: 'branch_protection' } });
    expect(store.intents.size).toBe(0);
  });

  it('when dismiss_stale_approvals is off, then an approval on an older head still counts', async () => {
    workflow.policy.protect('main', { required_approvals: 1, dismiss_stale_approvals: false });
    await review(bob, 'approve');
    push(SRC2, SRC);
    expect((await mergeMergeRequest(deps, ctx, '1')).sha).toBe(SRC2);
  });

  it('when a writer requested changes besides enough approvals, then 409 until that writer approves', async () => {
    workflow.policy.protect('main', { required_approvals: 1 });
    await review(bob, 'approve');
    await review(carol, 'request_changes');
    expect(await rejection(mergeMergeRequest(deps, ctx, '1'))).toEqual({ kind: 'conflict', message: 'Changes requested by 1 reviewer with write access', details: { reason: 'branch_protection' } });
    await review(carol, 'approve');
    expect((await mergeMergeRequest(deps, ctx, '1')).strategy).toBe('fast-forward');
  });

  it('when both checks and approvals are missing, then the status check is reported first', async () => {
    workflow.policy.protect('main', { required_approvals: 1, required_status_checks: ['ci'] });
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.message).toBe('Required status check "ci" is not successful');
  });

  it('when the caller is an admin, then the rule still applies (no bypass)', async () => {
    workflow.policy.protect('main', { required_approvals: 1 });
    expect((await rejection(mergeMergeRequest(deps, { ...ctx, repo: { ...repo, permission: 'admin' } }, '1')))?.message).toBe('1 approving review required');
  });

  it('when accounts cannot answer, then the merge fails unavailable, the claim released and nothing moved', async () => {
    workflow.policy.failure = new AppError('unavailable', 'accounts unavailable');
    expect((await rejection(mergeMergeRequest(deps, ctx, '1')))?.kind).toBe('unavailable');
    expect(store.intents.size).toBe(0);
    expect(git.updates).toEqual([]);
  });
});

describe('merge request detail (README "Reviews", "Commit statuses")', () => {
  it('when reviews and statuses exist, then review_summary counts current writer verdicts and status is the combined status of the head', async () => {
    await review(bob, 'approve');
    await review(carol, 'approve', 'read');
    await status('pending', 'ci');
    const detail = await getMergeRequest(deps, repo, '1');
    expect(detail.review_summary).toEqual({ approvals: 1, changes_requested: 0 });
    expect(detail.status).toMatchObject({ state: 'pending', sha: SRC, total_count: 1 });
    push(SRC2, SRC);
    const after = await getMergeRequest(deps, repo, '1');
    expect(after.review_summary).toEqual({ approvals: 0, changes_requested: 0 });
    expect(after.status).toEqual({ state: 'pending', sha: SRC2, total_count: 0, statuses: [] });
  });

  it('when the source branch is gone, then the summary and status are about the recorded source sha', async () => {
    await status('success', 'ci');
    git.branches.delete('feature');
    expect((await getMergeRequest(deps, repo, '1')).status).toMatchObject({ state: 'success', sha: SRC });
  });
});
