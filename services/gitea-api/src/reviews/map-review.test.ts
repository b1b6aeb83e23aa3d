import { describe, expect, it } from '@jest/globals';
import type { Review } from '@githost/api-types';
import { giteaIdOf } from '@githost/gitea-ids';
import { toCreateReview, toGiteaReview, toRequestedReview, toReviewRequest, type ReviewContext } from './map-review.js';

const ctx: ReviewContext = { pullHtmlUrl: 'https://git.example/alice/app/-/merge-requests/7', user: (u) => ({ login: u }) };
const review: Review = {
  id: 'r-uuid',
  mr_id: 'mr-uuid',
  author_id: 'u2',
  author_username: 'carol',
  state: 'changes_requested',
  body: 'please fix',
  commit_sha: 'c'.repeat(40),
  created_at: '2026-11-03T10:00:00.000Z',
  stale: true,
};

describe('toGiteaReview', () => {
  it('maps field by field', () => {
    const id = giteaIdOf('review', 'r-uuid');
    expect(toGiteaReview(ctx, review)).toEqual({
      id,
      user: { login: 'carol' },
      team: null,
      state: 'REQUEST_CHANGES',
      body: 'please fix',
      commit_id: 'c'.repeat(40),
      stale: true,
      official: false,
      dismissed: false,
      comments_count: 0,
      submitted_at: '2026-11-03T10:00:00.000Z',
      updated_at: '2026-11-03T10:00:00.000Z',
      html_url: `${ctx.pullHtmlUrl}#review-${id}`,
      pull_request_url: ctx.pullHtmlUrl,
    });
    expect(toGiteaReview(ctx, { ...review, state: 'approved' }).state).toBe('APPROVED');
    expect(toGiteaReview(ctx, { ...review, state: 'commented' }).state).toBe('COMMENT');
  });
});

describe('toCreateReview', () => {
  it('maps events and line comments', () => {
    expect(toCreateReview({ event: 'APPROVED', body: '' })).toEqual({ review: { event: 'approve', body: null }, comments: [] });
    expect(
      toCreateReview({
        event: 'COMMENT',
        body: 'see lines',
        comments: [
          { path: 'a.txt', body: 'new side', new_position: 3, old_position: 0 },
          { path: 'a.txt', body: 'old side', new_position: 0, old_position: 2 },
          { path: 'a.txt', body: 'whole file' },
        ],
      }),
    ).toEqual({
      review: { event: 'comment', body: 'see lines' },
      comments: [
        { body: 'new side', file_path: 'a.txt', line_number: 3, diff_side: 'new' },
        { body: 'old side', file_path: 'a.txt', line_number: 2, diff_side: 'old' },
        { body: 'whole file', file_path: 'a.txt' },
      ],
    });
    expect(toCreateReview({ event: 'REQUEST_CHANGES', body: 'x' }).review.event).toBe('request_changes');
  });

  it('refuses pending (draft) reviews and unknown events', () => {
    expect(() => toCreateReview({ body: 'x' })).toThrow('githost has no pending reviews');
    expect(() => toCreateReview({ event: 'PENDING' })).toThrow('githost has no pending reviews');
    expect(() => toCreateReview({ event: 'toString' })).toThrow('Unknown review event: toString');
    expect(() => toCreateReview({ event: 'COMMENT', comments: [{ body: 'no path' }] })).toThrow('path and a body');
  });
});

describe('review requests', () => {
  it('reads logins once each and refuses teams', () => {
    expect(toReviewRequest({ reviewers: ['carol', 'dave', 'carol'] })).toEqual(['carol', 'dave']);
    expect(() => toReviewRequest({ reviewers: [], team_reviewers: ['core'] })).toThrow('githost has no teams');
    expect(() => toReviewRequest({ reviewers: [3] })).toThrow('reviewers must be user names');
  });

  it('answers a REQUEST_REVIEW review per login with a stable id', () => {
    const r = toRequestedReview(ctx, 'repo#7', 'carol', '2026-11-03T10:00:00.000Z');
    expect(r).toMatchObject({ state: 'REQUEST_REVIEW', user: { login: 'carol' }, body: '', commit_id: '', pull_request_url: ctx.pullHtmlUrl });
    expect(r.id).toBe(toRequestedReview(ctx, 'repo#7', 'carol', 'later').id);
    expect(r.id).not.toBe(toRequestedReview(ctx, 'repo#7', 'dave', 'later').id);
  });
});
