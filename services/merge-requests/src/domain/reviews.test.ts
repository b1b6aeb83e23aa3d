import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AppError } from '@githost/errors';
import { BASE, FakeUsers, gitWithFeature, MemoryStore, SRC, type FakeGit } from '../../test/support/in-memory.js';
import { MemoryReviews } from '../../test/support/in-memory-workflow.js';
import { createMergeRequest } from './merge-requests.js';
import { listReviews, submitReview, summarizeReviews, validateReview, type ReviewDeps } from './reviews.js';
import type { Caller, RepoRef } from './types.js';
import type { Review } from './types.js';

const SRC2 = 'c'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const author: Caller = { user_id: 'u-alice', username: 'alice' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };

let store: MemoryStore;
let git: FakeGit;
let reviews: MemoryReviews;
let kicks: number;
let deps: ReviewDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message }));

beforeEach(async () => {
  store = new MemoryStore();
  git = gitWithFeature();
  reviews = new MemoryReviews();
  kicks = 0;
  const users = new FakeUsers([
    { id: 'u-alice', username: 'alice', email: 'a@example.com' },
    { id: 'u-bob', username: 'bob', email: 'b@example.com' },
  ]);
  deps = { store, git, users, reviews, relay: { kick: () => void kicks++ } };
  await createMergeRequest(deps, repo, author, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
  kicks = 0; // creation kicked the relay for its `opened` event
});

describe('submitting a review (README "Reviews")', () => {
  it('when a writer approves, then 201 shape with the current head, the event in the outbox and the relay kicked', async () => {
    const review = await submitReview(deps, repo, bob, '1', { event: 'approve' }, 'req-1');
    expect(review).toEqual({ id: expect.any(String), mr_id: store.mrs[0]!.id, author_id: 'u-bob', author_username: 'bob', state: 'approved', body: '', commit_sha: SRC, created_at: expect.any(String), stale: false });
    expect(reviews.reviews[0]!.reviewer_permission).toBe('write');
    expect(kicks).toBe(1);
    expect(reviews.outbox).toHaveLength(1);
    expect(reviews.outbox[0]).toMatchObject({ kind: 'merge_request_review', repository: { id: 'r1', owner: 'alice', name: 'proj' }, request_id: 'req-1' });
    expect(reviews.outbox[0]!.payload).toEqual({
      event: 'merge_request_review',
      action: 'submitted',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'bob' },
      merge_request: { number: 1, title: 'Feature', state: 'open' },
      review: { id: review.id, state: 'approved', body: '', commit_sha: SRC },
    });
  });

  it('when the event is unknown, then 400 naming the allowed values and nothing is written', async () => {
    expect(await rejection(submitReview(deps, repo, bob, '1', { event: 'lgtm' }, null))).toEqual({ kind: 'validation', message: 'event must be one of: approve, request_changes, comment' });
    expect(reviews.reviews).toEqual([]);
  });

  it('when request_changes or comment come without a body, then 400', async () => {
    expect(await rejection(submitReview(deps, repo, bob, '1', { event: 'request_changes', body: '  ' }, null))).toEqual({ kind: 'validation', message: 'Review body is required when event is "request_changes"' });
    expect(await rejection(submitReview(deps, repo, bob, '1', { event: 'comment' }, null))).toEqual({ kind: 'validation', message: 'Review body is required when event is "comment"' });
  });

  it('when the body is over the comment limit or not a string, then 400', () => {
    expect(() => validateReview({ event: 'approve', body: 'x'.repeat(65_537) })).toThrow('Review body must be at most 65536 characters');
    expect(() => validateReview({ event: 'approve', body: 5 })).toThrow('body must be a string');
  });

  it('when the author approves or requests changes on their own merge request, then 400; a comment review is fine', async () => {
    expect(await rejection(submitReview(deps, repo, author, '1', { event: 'approve' }, null))).toEqual({ kind: 'validation', message: 'Can not approve your own merge request' });
    expect(await rejection(submitReview(deps, repo, author, '1', { event: 'request_changes', body: 'hm' }, null))).toEqual({ kind: 'validation', message: 'Can not request changes on your own merge request' });
    expect((await submitReview(deps, repo, author, '1', { event: 'comment', body: 'note' }, null)).state).toBe('commented');
  });

  it('when the number is unknown, then 404 as for comments', async () => {
    expect(await rejection(submitReview(deps, repo, bob, '7', { event: 'approve' }, null))).toEqual({ kind: 'not_found', message: 'Merge request #7 not found' });
  });

  it('when the repository is private and the caller cannot read it, then 404 `Repository not found`', async () => {
    expect(await rejection(submitReview(deps, { ...repo, private: true, permission: 'none' }, bob, '1', { event: 'approve' }, null))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when anonymous, then 401', async () => {
    expect((await rejection(submitReview(deps, repo, null, '1', { event: 'approve' }, null)))?.kind).toBe('unauthenticated');
  });

  it('when the merge request is merged, then approve is 409 `Merge request is not open` but a comment review is accepted', async () => {
    store.mrs[0]!.state = 'merged';
    expect(await rejection(submitReview(deps, repo, bob, '1', { event: 'approve' }, null))).toEqual({ kind: 'conflict', message: 'Merge request is not open' });
    expect((await submitReview(deps, repo, bob, '1', { event: 'comment', body: 'late' }, null)).state).toBe('commented');
  });

  it('when the source branch is gone, then the review is on the recorded source sha', async () => {
    git.branches.delete('feature');
    expect((await submitReview(deps, repo, bob, '1', { event: 'approve' }, null)).commit_sha).toBe(SRC);
  });

  it('when a reader reviews, then the review is recorded with the read permission', async () => {
    await submitReview(deps, { ...repo, permission: 'read' }, bob, '1', { event: 'approve' }, null);
    expect(reviews.reviews[0]!.reviewer_permission).toBe('read');
  });
});

describe('listing reviews', () => {
  it('when the source moved after a review, then the list is oldest first with author_username and `stale` set on the older one', async () => {
    await submitReview(deps, repo, bob, '1', { event: 'approve' }, null);
    git.commit(SRC2, SRC);
    git.branches.set('feature', SRC2);
    await submitReview(deps, repo, bob, '1', { event: 'request_changes', body: 'fix it' }, null);
    const list = await listReviews(deps, repo, '1');
    expect(list.map((r) => [r.state, r.author_username, r.commit_sha, r.stale])).toEqual([
      ['approved', 'bob', SRC, true],
      ['changes_requested', 'bob', SRC2, false],
    ]);
    expect(list[0]).not.toHaveProperty('reviewer_permission');
  });
});

describe('summarizeReviews', () => {
  let n = 0;
  const review = (author: string, state: Review['state'], sha = SRC, permission: Review['reviewer_permission'] = 'write'): Review => ({
    id: String(++n), mr_id: 'm', author_id: author, state, body: '', commit_sha: sha, reviewer_permission: permission, created_at: '',
  });

  it('when one reviewer approved then requested changes, then only the latest counts', () => {
    expect(summarizeReviews([review('a', 'approved'), review('a', 'changes_requested')], SRC, true)).toEqual({ approvals: 0, changes_requested: 1 });
  });

  it('when a comment review follows an approval, then the approval still counts', () => {
    expect(summarizeReviews([review('a', 'approved'), review('a', 'commented')], SRC, true)).toEqual({ approvals: 1, changes_requested: 0 });
  });

  it('when a reader approves or requests changes, then neither counts', () => {
    expect(summarizeReviews([review('a', 'approved', SRC, 'read'), review('b', 'changes_requested', SRC, 'read')], SRC, true)).toEqual({ approvals: 0, changes_requested: 0 });
  });

  it('when reviews were given on an older head, then they count only without dismiss_stale_approvals', () => {
    const given = [review('a', 'approved', BASE), review('b', 'approved', SRC, 'admin'), review('c', 'changes_requested', BASE)];
    expect(summarizeReviews(given, SRC, true)).toEqual({ approvals: 1, changes_requested: 0 });
    expect(summarizeReviews(given, SRC, false)).toEqual({ approvals: 2, changes_requested: 1 });
  });
});
