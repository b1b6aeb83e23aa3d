import { forbidden, notFound, validation } from '@githost/errors';
import { canWrite } from '@githost/identity';
import { requireCaller, requireVisible } from './access.js';
import { usernamesOf } from './authors.js';
import { reviewRequestEvent } from './lifecycle-events.js';
import type { EventRelay, MergeRequestStore, ReviewRequest, ReviewRequestStore, UserDirectory } from './ports.js';
import type { Caller, MergeRequest, RepoRef } from './types.js';
import { mrNotFound, parseNumber } from './validate.js';

/** At most this many reviewers asked for at once and pending per merge request: a bound on the row count, far above use. */
export const MAX_REVIEW_REQUESTS = 100;

export interface ReviewRequestDeps {
  store: MergeRequestStore;
  users: UserDirectory;
  requests: ReviewRequestStore;
  relay: EventRelay;
}

/** One pending review request, as answered. */
export interface ReviewRequestView {
  username: string | null;
  requested_by_username: string | null;
  created_at: string;
}

const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

/** `{reviewers: [username, ...]}`: 1 to 100 usernames. */
export function parseReviewers(body: unknown): string[] {
  const reviewers = fieldsOf(body).reviewers;
  const message = `reviewers must be a list of 1 to ${MAX_REVIEW_REQUESTS} usernames`;
  if (!Array.isArray(reviewers) || reviewers.length === 0 || reviewers.length > MAX_REVIEW_REQUESTS) throw validation(message);
  if (!reviewers.every((r): r is string => typeof r === 'string' && r !== '' && r.length <= 100)) throw validation(message);
  return [...new Set(reviewers)];
}

async function findOrThrow(store: MergeRequestStore, repoId: string, rawNumber: string): Promise<MergeRequest> {
  const mr = await store.findByNumber(repoId, parseNumber(rawNumber));
  if (!mr) throw mrNotFound(rawNumber);
  return mr;
}

/** Who may ask for or withdraw reviews: the author or a writer, as for an edit of the merge request;
 *  beside the spec, so refused as what it is (403), not as the spec's write checks (400). */
function requireAuthorOrWriter(repo: RepoRef, caller: Caller, mr: MergeRequest): void {
  const isAuthor = caller.user_id !== null && caller.user_id === mr.author_id;
  if (!isAuthor && !canWrite(repo.permission)) throw forbidden('Only the author or users with write access can request reviews on this merge request');
}

/** The usernames as user ids; an unknown one is 404 naming it. */
async function idsOf(users: UserDirectory, usernames: string[]): Promise<Map<string, string>> {
  const found = await users.getUsersByName(usernames);
  const ids = new Map<string, string>();
  for (const name of usernames) {
    const user = found.get(name);
    if (!user) throw notFound(`User not found: ${name}`);
    ids.set(name, user.id);
  }
  return ids;
}

/** `GET .../merge-requests/{number}/requested-reviewers`: pending requests, oldest first. */
export async function listReviewRequests(deps: ReviewRequestDeps, repo: RepoRef | null, rawNumber: string): Promise<ReviewRequestView[]> {
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps.store, r.id, rawNumber);
  return viewsOf(deps, await deps.requests.listRequests([mr.id]));
}

/**
 * `POST .../requested-reviewers {reviewers}`: asks each for a review (services/merge-requests/README.md#review-requests).
 * Asking again is no change; the author cannot be asked. Answers the pending requests after it.
 */
export async function requestReviews(deps: ReviewRequestDeps, repo: RepoRef | null, caller: Caller | null, rawNumber: string, body: unknown, requestId: string | null): Promise<ReviewRequestView[]> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps.store, r.id, rawNumber);
  requireAuthorOrWriter(r, who, mr);
  const names = parseReviewers(body);
  const ids = await idsOf(deps.users, names);
  const author = [...ids].find(([, id]) => id === mr.author_id);
  if (author) throw validation(`Can not request a review from the author: ${author[0]}`);
  const events = eventsFor('review_requested', mr, r, who, ids, requestId);
  if ((await deps.requests.addRequests(mr.id, [...ids.values()], who.user_id, MAX_REVIEW_REQUESTS, events)) === 'limit') {
    throw validation(`At most ${MAX_REVIEW_REQUESTS} reviews can be pending on a merge request`);
  }
  deps.relay.kick();
  return viewsOf(deps, await deps.requests.listRequests([mr.id]));
}

/** `DELETE .../requested-reviewers {reviewers}`: withdraws those requests; one not pending is no change. */
export async function withdrawReviewRequests(deps: ReviewRequestDeps, repo: RepoRef | null, caller: Caller | null, rawNumber: string, body: unknown, requestId: string | null): Promise<ReviewRequestView[]> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps.store, r.id, rawNumber);
  requireAuthorOrWriter(r, who, mr);
  const ids = await idsOf(deps.users, parseReviewers(body));
  await deps.requests.removeRequests(mr.id, [...ids.values()], eventsFor('review_request_removed', mr, r, who, ids, requestId));
  deps.relay.kick();
  return viewsOf(deps, await deps.requests.listRequests([mr.id]));
}

/** One event per reviewer the store added or removed (given by id), named as asked. */
function eventsFor(action: 'review_requested' | 'review_request_removed', mr: MergeRequest, repo: RepoRef, who: Caller, ids: Map<string, string>, requestId: string | null) {
  const nameOf = new Map([...ids].map(([name, id]) => [id, name]));
  return (changed: string[]) => {
    const at = new Date().toISOString();
    return changed.map((id) => reviewRequestEvent(action, mr, { id: repo.id, owner: repo.owner, name: repo.name }, who.username, nameOf.get(id) ?? '', at, requestId));
  };
}

async function viewsOf(deps: ReviewRequestDeps, rows: ReviewRequest[]): Promise<ReviewRequestView[]> {
  const nameOf = await usernamesOf(deps.users, rows.flatMap((row) => [row.reviewer_id, row.requested_by]));
  return rows.map((row) => ({ username: nameOf(row.reviewer_id), requested_by_username: nameOf(row.requested_by), created_at: row.created_at }));
}
