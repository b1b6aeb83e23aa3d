import { beforeEach, describe, expect, it } from '@jest/globals';
import type { AppError } from '@githost/errors';
import { FakeUsers, gitWithFeature, MemoryStore } from '../../test/support/in-memory.js';
import { MemoryReviews } from '../../test/support/in-memory-workflow.js';
import { createMergeRequest } from './merge-requests.js';
import { listReviewRequests, MAX_REVIEW_REQUESTS, requestReviews, withdrawReviewRequests, type ReviewRequestDeps } from './review-requests.js';
import { submitReview } from './reviews.js';
import type { Caller, RepoRef } from './types.js';

const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'write' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };
const alice: Caller = { user_id: 'u-alice', username: 'alice' };
const rita: Caller = { user_id: 'u-rita', username: 'rita' };

let reviews: MemoryReviews;
let deps: ReviewRequestDeps & { git: ReturnType<typeof gitWithFeature>; reviews: MemoryReviews; relay: { kick(): void } };
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: AppError) => ({ kind: e.kind, message: e.message }));
const names = async () => (await listReviewRequests(deps, repo, '1')).map((v) => [v.username, v.requested_by_username]);

beforeEach(async () => {
  reviews = new MemoryReviews();
  const users = new FakeUsers([
    { id: 'u-alice', username: 'alice', email: 'a@example.com' },
    { id: 'u-bob', username: 'bob', email: 'b@example.com' },
    { id: 'u-rita', username: 'rita', email: 'r@example.com' },
  ]);
  deps = { store: new MemoryStore(), git: gitWithFeature(), users, reviews, requests: reviews, relay: { kick: () => undefined } };
  // bob's merge request in alice's repository
  await createMergeRequest(deps, repo, bob, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
});

describe('review requests (services/merge-requests/README.md#review-requests)', () => {
  it('when the author asks alice and rita, then both are pending, oldest first, with who asked; asking again changes nothing', async () => {
    const answer = await requestReviews(deps, { ...repo, permission: 'read' }, bob, '1', { reviewers: ['alice', 'rita'] });
    expect(answer.map((v) => v.username)).toEqual(['alice', 'rita']);
    await requestReviews(deps, repo, alice, '1', { reviewers: ['rita'] });
    expect(await names()).toEqual([['alice', 'bob'], ['rita', 'bob']]);
  });

  it('when a requested reviewer reviews, then that request is answered and gone; the others stay', async () => {
    await requestReviews(deps, repo, bob, '1', { reviewers: ['alice', 'rita'] });
    await submitReview(deps, repo, alice, '1', { event: 'approve' }, null);
    expect(await names()).toEqual([['rita', 'bob']]);
    await submitReview(deps, { ...repo, permission: 'read' }, rita, '1', { event: 'comment', body: 'looked' }, null);
    expect(await names()).toEqual([]);
  });

  it('when requests are withdrawn, then only those go; one not pending is no change', async () => {
    await requestReviews(deps, repo, bob, '1', { reviewers: ['alice', 'rita'] });
    expect((await withdrawReviewRequests(deps, repo, bob, '1', { reviewers: ['alice', 'bob'] })).map((v) => v.username)).toEqual(['rita']);
  });

  it('when the author is asked, a user is unknown, or the body is not a list of names, then refused and nothing stored', async () => {
    expect(await rejection(requestReviews(deps, repo, alice, '1', { reviewers: ['rita', 'bob'] }))).toEqual({ kind: 'validation', message: 'Can not request a review from the author: bob' });
    expect(await rejection(requestReviews(deps, repo, alice, '1', { reviewers: ['rita', 'nobody'] }))).toEqual({ kind: 'not_found', message: 'User not found: nobody' });
    const message = `reviewers must be a list of 1 to ${MAX_REVIEW_REQUESTS} usernames`;
    for (const body of [{}, { reviewers: [] }, { reviewers: 'rita' }, { reviewers: [1] }, { reviewers: [''] }, null]) {
      expect(await rejection(requestReviews(deps, repo, alice, '1', body))).toEqual({ kind: 'validation', message });
    }
    expect(await names()).toEqual([]);
  });

  it('when a reader who is not the author asks, or no one is signed in, or the merge request is unknown, then refused', async () => {
    expect(await rejection(requestReviews(deps, { ...repo, permission: 'read' }, rita, '1', { reviewers: ['alice'] }))).toEqual({
      kind: 'forbidden',
      message: 'Only the author or users with write access can request reviews on this merge request',
    });
    expect((await rejection(requestReviews(deps, repo, null, '1', { reviewers: ['alice'] })))?.kind).toBe('unauthenticated');
    expect(await rejection(listReviewRequests(deps, repo, '9'))).toEqual({ kind: 'not_found', message: 'Merge request #9 not found' });
    expect(await rejection(listReviewRequests(deps, { ...repo, private: true, permission: 'none' }, '1'))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when more than the bound would be pending, then refused and nothing added', async () => {
    const many = Array.from({ length: MAX_REVIEW_REQUESTS }, (_, i) => `u${i}`);
    deps.users = new FakeUsers(many.map((u) => ({ id: `id-${u}`, username: u, email: `${u}@example.com` })).concat([{ id: 'u-rita', username: 'rita', email: 'r@example.com' }]));
    await requestReviews(deps, repo, bob, '1', { reviewers: many });
    expect(await rejection(requestReviews(deps, repo, bob, '1', { reviewers: ['rita'] }))).toEqual({ kind: 'validation', message: `At most ${MAX_REVIEW_REQUESTS} reviews can be pending on a merge request` });
    expect((await listReviewRequests(deps, repo, '1')).length).toBe(MAX_REVIEW_REQUESTS);
  });
});
