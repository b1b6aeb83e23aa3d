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
    const answer = await requestReviews(deps, { ...repo, permission: 'read' }, bob, '1', { reviewers: ['alice', 'rita'] }, null);
    expect(answer.map((v) => v.username)).toEqual(['alice', 'rita']);
    await requestReviews(deps, repo, alice, '1', { reviewers: ['rita'] }, null);
    expect(await names()).toEqual([['alice', 'bob'], ['rita', 'bob']]);
  });

  it('when a requested reviewer reviews, then that request is answered and gone; the others stay', async () => {
    await requestReviews(deps, repo, bob, '1', { reviewers: ['alice', 'rita'] }, null);
    await submitReview(deps, repo, alice, '1', { event: 'approve' }, null);
    expect(await names()).toEqual([['rita', 'bob']]);
    await submitReview(deps, { ...repo, permission: 'read' }, rita, '1', { event: 'comment', body: 'looked' }, null);
    expect(await names()).toEqual([]);
  });

  it('when reviews are asked for and withdrawn, then one merge_request event per reviewer changed, written with the change; asking again sends none', async () => {
    const start = reviews.outbox.length;
    await requestReviews(deps, repo, bob, '1', { reviewers: ['alice', 'rita'] }, 'req-1');
    await requestReviews(deps, repo, bob, '1', { reviewers: ['rita'] }, 'req-2');
    await withdrawReviewRequests(deps, repo, bob, '1', { reviewers: ['rita'] }, 'req-3');
    await withdrawReviewRequests(deps, repo, bob, '1', { reviewers: ['rita'] }, 'req-4');
    const sent = reviews.outbox.slice(start);
    expect(sent.map((e) => [e.kind, (e.payload as { action: string }).action, (e.payload as { requested_reviewer: { username: string } }).requested_reviewer.username, e.request_id])).toEqual([
      ['merge_request', 'review_requested', 'alice', 'req-1'],
      ['merge_request', 'review_requested', 'rita', 'req-1'],
      ['merge_request', 'review_request_removed', 'rita', 'req-3'],
    ]);
    expect(sent[0]!.payload).toMatchObject({
      event: 'merge_request',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'bob' },
      merge_request: { number: 1, title: 'Feature', state: 'open', source_branch: 'feature', target_branch: 'main' },
    });
  });

  it('when requests are withdrawn, then only those go; one not pending is no change', async () => {
    await requestReviews(deps, repo, bob, '1', { reviewers: ['alice', 'rita'] }, null);
    expect((await withdrawReviewRequests(deps, repo, bob, '1', { reviewers: ['alice', 'bob'] }, null)).map((v) => v.username)).toEqual(['rita']);
  });

  it('when the author is asked, a user is unknown, or the body is not a list of names, then refused and nothing stored', async () => {
    expect(await rejection(requestReviews(deps, repo, alice, '1', { reviewers: ['rita', 'bob'] }, null))).toEqual({ kind: 'validation', message: 'Can not request a review from the author: bob' });
    expect(await rejection(requestReviews(deps, repo, alice, '1', { reviewers: ['rita', 'nobody'] }, null))).toEqual({ kind: 'not_found', message: 'User not found: nobody' });
    const message = `reviewers must be a list of 1 to ${MAX_REVIEW_REQUESTS} usernames`;
    for (const body of [{}, { reviewers: [] }, { reviewers: 'rita' }, { reviewers: [1] }, { reviewers: [''] }, null]) {
      expect(await rejection(requestReviews(deps, repo, alice, '1', body, null))).toEqual({ kind: 'validation', message });
    }
    expect(await names()).toEqual([]);
  });

  it('when a reader who is not the author asks, or no one is signed in, or the merge request is unknown, then refused', async () => {
    expect(await rejection(requestReviews(deps, { ...repo, permission: 'read' }, rita, '1', { reviewers: ['alice'] }, null))).toEqual({
      kind: 'forbidden',
      message: 'Only the author or users with write access can request reviews on this merge request',
    });
    expect((await rejection(requestReviews(deps, repo, null, '1', { reviewers: ['alice'] }, null)))?.kind).toBe('unauthenticated');
    expect(await rejection(listReviewRequests(deps, repo, '9'))).toEqual({ kind: 'not_found', message: 'Merge request #9 not found' });
    expect(await rejection(listReviewRequests(deps, { ...repo, private: true, permission: 'none' }, '1'))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when more than the bound would be pending, then refused and nothing added', async () => {
    const many = Array.from({ length: MAX_REVIEW_REQUESTS }, (_, i) => `u${i}`);
    deps.users = new FakeUsers(many.map((u) => ({ id: `id-${u}`, username: u, email: `${u}@example.com` })).concat([{ id: 'u-rita', username: 'rita', email: 'r@example.com' }]));
    await requestReviews(deps, repo, bob, '1', { reviewers: many }, null);
    expect(await rejection(requestReviews(deps, repo, bob, '1', { reviewers: ['rita'] }, null))).toEqual({ kind: 'validation', message: `At most ${MAX_REVIEW_REQUESTS} reviews can be pending on a merge request` });
    expect((await listReviewRequests(deps, repo, '1')).length).toBe(MAX_REVIEW_REQUESTS);
  });
});
