import { envelope, payloadBase, type MergeRequestPayloadBase } from './lifecycle-events.js';
import type { EventEnvelope } from '@githost/bus';
import { conflict, validation } from '@githost/errors';
import { canWrite } from '@githost/identity';
import { requireCaller, requireVisible } from './access.js';
import { usernamesOf } from './authors.js';
import { MAX_TEXT_CHARS } from './limits.js';
import type { EventRelay, GitPort, MergeRequestStore, UserDirectory } from './ports.js';
import type { Caller, MergeRequest, RepoRef } from './types.js';
import { isValidBranchName, mrNotFound, parseNumber } from './validate.js';
import type { ReviewStore } from './ports.js';
import type { Review, ReviewState } from './types.js';

export const REVIEW_EVENTS = ['approve', 'request_changes', 'comment'] as const;
export type ReviewEvent = (typeof REVIEW_EVENTS)[number];
const STATE_OF: Record<ReviewEvent, ReviewState> = { approve: 'approved', request_changes: 'changes_requested', comment: 'commented' };

export interface ReviewDeps {
  store: MergeRequestStore;
  git: GitPort;
  users: UserDirectory;
  reviews: ReviewStore;
  relay: EventRelay;
}

export type ReviewView = Omit<Review, 'reviewer_permission'> & {
  author_username: string | null;
  /** Given on an older head than the current one (services/merge-requests/README.md#reviews). */
  stale: boolean;
};

export interface ReviewSummary {
  approvals: number;
  changes_requested: number;
}

export interface ReviewPayload extends MergeRequestPayloadBase<'merge_request_review', 'submitted'> {
  review: { id: string; state: ReviewState; body: string; commit_sha: string };
}

const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

/** services/merge-requests/README.md#reviews: as GitHub, a change request or a comment says something; an approval may
 *  be bare. Limits as comments (CONTRACT §9). */
export function validateReview(body: unknown): { event: ReviewEvent; body: string } {
  const b = fieldsOf(body);
  if (typeof b.event !== 'string' || !(REVIEW_EVENTS as readonly string[]).includes(b.event)) {
    throw validation(`event must be one of: ${REVIEW_EVENTS.join(', ')}`);
  }
  const event = b.event as ReviewEvent;
  if (b.body !== undefined && b.body !== null && typeof b.body !== 'string') throw validation('body must be a string');
  const text = typeof b.body === 'string' ? b.body : '';
  if (text.length > MAX_TEXT_CHARS) throw validation(`Review body must be at most ${MAX_TEXT_CHARS} characters`);
  if (event !== 'approve' && text.trim() === '') throw validation(`Review body is required when event is "${event}"`);
  return { event, body: text };
}

/**
 * The head a merge request is at now: the live tip of its source branch, or, when the branch is
 * gone, the tip recorded for it (services/merge-requests/README.md#reviews).
 */
export async function headOf(git: GitPort, repoId: string, mr: MergeRequest): Promise<string> {
  const tip = isValidBranchName(mr.source_branch) ? await git.resolveBranch(repoId, mr.source_branch) : null;
  return tip ?? mr.head_sha;
}

async function findOrThrow(store: MergeRequestStore, repoId: string, rawNumber: string): Promise<MergeRequest> {
  const mr = await store.findByNumber(repoId, parseNumber(rawNumber));
  if (!mr) throw mrNotFound(rawNumber);
  return mr;
}

/** `POST .../merge-requests/{number}/reviews` (services/merge-requests/README.md#reviews). */
export async function submitReview(deps: ReviewDeps, repo: RepoRef | null, caller: Caller | null, rawNumber: string, body: unknown, requestId: string | null): Promise<ReviewView> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps.store, r.id, rawNumber);
  const input = validateReview(body);
  const own = who.user_id !== null && who.user_id === mr.author_id;
  // GitHub refuses both on one's own pull request; a comment review is fine.
  if (own && input.event === 'approve') throw validation('Can not approve your own merge request');
  if (own && input.event === 'request_changes') throw validation('Can not request changes on your own merge request');
  // A verdict on a closed or merged merge request could never gate anything; remarks still can be made, as comments.
  if (input.event !== 'comment' && mr.state !== 'open') throw conflict('Merge request is not open');
  const head = await headOf(deps.git, r.id, mr);
  const review = await deps.reviews.addReview(
    { mr_id: mr.id, author_id: who.user_id, state: STATE_OF[input.event], body: input.body, commit_sha: head, reviewer_permission: r.permission },
    (saved) => reviewEvent(saved, mr, r, who, requestId),
  );
  deps.relay.kick();
  return viewOf(review, who.username, head);
}

/** `GET .../merge-requests/{number}/reviews`: oldest first. */
export async function listReviews(deps: ReviewDeps, repo: RepoRef | null, rawNumber: string): Promise<ReviewView[]> {
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps.store, r.id, rawNumber);
  const [reviews, head] = await Promise.all([deps.reviews.listReviews(mr.id), headOf(deps.git, r.id, mr)]);
  const nameOf = await usernamesOf(deps.users, reviews.map((v) => v.author_id));
  return reviews.map((v) => viewOf(v, nameOf(v.author_id), head));
}

function viewOf(review: Review, username: string | null, head: string): ReviewView {
  const { reviewer_permission: _p, ...rest } = review;
  return { ...rest, author_username: username, stale: review.commit_sha !== head };
}

/**
 * services/merge-requests/README.md#reviews: per reviewer only the latest approval or change request counts (GitHub; a
 * later comment review changes nothing), only reviewers who had write access when they reviewed
 * count, and with `dismissStale` only reviews given on `head` count: a push dismisses both kinds
 * of verdict, so each must be given again on what will be merged.
 */
export function summarizeReviews(reviews: Review[], head: string, dismissStale: boolean): ReviewSummary {
  const latest = new Map<string, Review>();
  for (const review of reviews) {
    if (review.state === 'commented') continue;
    latest.set(review.author_id ?? '', review); // oldest first: the last one wins
  }
  const summary: ReviewSummary = { approvals: 0, changes_requested: 0 };
  for (const review of latest.values()) {
    if (!canWrite(review.reviewer_permission)) continue;
    if (dismissStale && review.commit_sha !== head) continue;
    if (review.state === 'approved') summary.approvals++;
    else summary.changes_requested++;
  }
  return summary;
}

/** CONTRACT §9 `merge_request_review` payload; sender is the reviewer. */
export function reviewEvent(review: Review, mr: MergeRequest, repo: RepoRef, sender: Caller, requestId: string | null): EventEnvelope<ReviewPayload> {
  return envelope('merge_request_review', review.created_at, repo, {
    ...payloadBase('merge_request_review', 'submitted', repo, sender.username, mr),
    review: { id: review.id, state: review.state, body: review.body, commit_sha: review.commit_sha },
  }, requestId);
}
