import type { RequestBody, Review } from '@githost/api-types';
import { giteaIdOf } from '@githost/gitea-ids';
import { unprocessable } from '@githost/errors';

/** githost reviews as Gitea's `PullReview`, and Gitea's `CreatePullReviewOptions` as githost requests. */

export interface ReviewContext {
  /** The pull request's web page (Gitea's `pull_request_url`). */
  pullHtmlUrl: string;
  /** Gitea's `User` for a username; null: a deleted account. */
  user(username: string | null): unknown;
}

const STATES: Record<Review['state'], 'APPROVED' | 'REQUEST_CHANGES' | 'COMMENT'> = {
  approved: 'APPROVED',
  changes_requested: 'REQUEST_CHANGES',
  commented: 'COMMENT',
};

export const reviewId = (review: Pick<Review, 'id'>) => giteaIdOf('review', review.id);

/**
 * `official` is Gitea's "counts towards the required approvals": githost counts a review when its
 * author had write access, which the review record does not carry, so it is answered false
 * (docs/decisions/gitea-api.md#reviews).
 */
export function toGiteaReview(ctx: ReviewContext, review: Review, lineComments = 0) {
  const id = reviewId(review);
  return {
    id,
    user: ctx.user(review.author_username),
    team: null,
    state: STATES[review.state],
    body: review.body,
    commit_id: review.commit_sha,
    stale: review.stale,
    official: false,
    dismissed: false,
    comments_count: lineComments,
    submitted_at: review.created_at,
    updated_at: review.created_at,
    html_url: `${ctx.pullHtmlUrl}#review-${id}`,
    pull_request_url: ctx.pullHtmlUrl,
  };
}

export type CreateReview = RequestBody<'createReview'>;
export type CreateComment = RequestBody<'createComment'>;

const EVENTS: Record<string, CreateReview['event']> = {
  APPROVED: 'approve',
  REQUEST_CHANGES: 'request_changes',
  COMMENT: 'comment',
};

/**
 * Gitea's `CreatePullReviewOptions` -> githost's review body and the line comments to post with
 * it. An empty or `PENDING` event is Gitea's draft review, which githost has not: 422. Gitea's
 * `new_position` is a line of the new side, `old_position` of the old one.
 */
export function toCreateReview(body: unknown): { review: CreateReview; comments: CreateComment[] } {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const raw = typeof b.event === 'string' ? b.event : '';
  if (raw === '' || raw === 'PENDING') throw unprocessable('githost has no pending reviews: event must be APPROVED, REQUEST_CHANGES or COMMENT');
  const event = Object.hasOwn(EVENTS, raw) ? EVENTS[raw] : undefined;
  if (!event) throw unprocessable(`Unknown review event: ${raw} (one of APPROVED, REQUEST_CHANGES, COMMENT)`);
  const text = typeof b.body === 'string' ? b.body : '';
  const comments: CreateComment[] = [];
  for (const c of Array.isArray(b.comments) ? b.comments : []) {
    const o = (c && typeof c === 'object' ? c : {}) as Record<string, unknown>;
    const path = typeof o.path === 'string' ? o.path : '';
    const commentBody = typeof o.body === 'string' ? o.body : '';
    const newLine = typeof o.new_position === 'number' ? o.new_position : 0;
    const oldLine = typeof o.old_position === 'number' ? o.old_position : 0;
    if (path === '' || commentBody === '') throw unprocessable('each review comment needs a path and a body');
    if (newLine > 0) comments.push({ body: commentBody, file_path: path, line_number: newLine, diff_side: 'new' });
    else if (oldLine > 0) comments.push({ body: commentBody, file_path: path, line_number: oldLine, diff_side: 'old' });
    else comments.push({ body: commentBody, file_path: path });
  }
  return { review: { event, body: text === '' ? null : text }, comments };
}

/** Gitea's `PullReviewRequestOptions`: reviewers by login; githost has no teams. */
export function toReviewRequest(body: unknown): string[] {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (Array.isArray(b.team_reviewers) && b.team_reviewers.length > 0) throw unprocessable('githost has no teams: team_reviewers cannot be requested');
  const reviewers = Array.isArray(b.reviewers) ? b.reviewers : [];
  if (reviewers.some((r) => typeof r !== 'string' || r === '')) throw unprocessable('reviewers must be user names');
  return [...new Set(reviewers as string[])];
}

/**
 * Gitea's answer to a review request: a `PullReview` in state `REQUEST_REVIEW` per reviewer.
 * githost records no review requests; the id is derived from the pull request and the login.
 */
export function toRequestedReview(ctx: ReviewContext, pullKey: string, login: string, at: string) {
  const id = giteaIdOf('review', `request:${pullKey}:${login}`);
  return {
    id,
    user: ctx.user(login),
    team: null,
    state: 'REQUEST_REVIEW' as const,
    body: '',
    commit_id: '',
    stale: false,
    official: false,
    dismissed: false,
    comments_count: 0,
    submitted_at: at,
    updated_at: at,
    html_url: `${ctx.pullHtmlUrl}#review-${id}`,
    pull_request_url: ctx.pullHtmlUrl,
  };
}
