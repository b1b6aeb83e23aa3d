import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import type { Comment, MergeRequest } from './types.js';

/** Lifecycle actions of the `merge_request` kind (CONTRACT §9); `merged` keeps the seed's builder. */
export type LifecycleAction = 'opened' | 'edited' | 'closed' | 'reopened' | 'synchronize';

export interface EventRepo {
  id: string;
  owner: string;
  name: string;
}

/** What a payload about one merge request carries (seed §6), before its kind's own fields. */
export interface MergeRequestPayloadBase<E extends string, A extends string> {
  event: E;
  action: A;
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
  merge_request: { number: number; title: string; state: string };
}

/** The `repository` of every payload (seed §6). */
export const repositoryOf = (repo: EventRepo) => ({ owner: repo.owner, name: repo.name, full_name: `${repo.owner}/${repo.name}` });

/** The seed's `merge_request` fields (seed §6), the whole of it for every kind but lifecycle actions. */
export const mergeRequestSummary = (mr: MergeRequest) => ({ number: mr.number, title: mr.title, state: mr.state });

/** The fields every payload about one merge request starts with, in the seed's order (seed §6). */
export function payloadBase<E extends string, A extends string>(event: E, action: A, repo: EventRepo, sender: string, mr: MergeRequest): MergeRequestPayloadBase<E, A> {
  return { event, action, repository: repositoryOf(repo), sender: { username: sender }, merge_request: mergeRequestSummary(mr) };
}

/** The seed's three fields first, then what a receiver acting on the action needs. */
function mergeRequestFields(mr: MergeRequest) {
  return {
    ...mergeRequestSummary(mr),
    description: mr.description,
    source_branch: mr.source_branch,
    target_branch: mr.target_branch,
    source_sha: mr.source_sha,
    head_sha: mr.head_sha,
  };
}

/** One event of this service: a fresh id, the repository addressed by id for consumers. */
export function envelope<P>(kind: string, occurredAt: string, repo: EventRepo, payload: P, requestId: string | null): EventEnvelope<P> {
  return {
    id: randomUUID(),
    kind,
    occurred_at: occurredAt,
    repository: { id: repo.id, owner: repo.owner, name: repo.name },
    payload,
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/**
 * `merge_request` event for a lifecycle action: the seed's payload shape, `sender` the user who
 * acted (BRIEF event conventions); `extra` says what changed (`changes` for edited, GitHub's
 * `before`/`after` for synchronize).
 */
export function lifecycleEvent(
  action: LifecycleAction,
  mr: MergeRequest,
  repo: EventRepo,
  sender: string,
  requestId: string | null,
  extra: Record<string, unknown> = {},
): EventEnvelope {
  // merge_request keeps its place in the key order, with the lifecycle's wider fields.
  return envelope('merge_request', mr.updated_at, repo, { ...payloadBase('merge_request', action, repo, sender, mr), merge_request: mergeRequestFields(mr), ...extra }, requestId);
}

/**
 * `merge_request` event for a review request asked for (`review_requested`) or withdrawn
 * (`review_request_removed`), one per reviewer, as GitHub and Gitea send them: the lifecycle's
 * payload with `requested_reviewer` (services/merge-requests/README.md#review-requests).
 */
export function reviewRequestEvent(
  action: 'review_requested' | 'review_request_removed',
  mr: MergeRequest,
  repo: EventRepo,
  sender: string,
  reviewer: string,
  occurredAt: string,
  requestId: string | null,
): EventEnvelope {
  return envelope('merge_request', occurredAt, repo, { ...payloadBase('merge_request', action, repo, sender, mr), merge_request: mergeRequestFields(mr), requested_reviewer: { username: reviewer } }, requestId);
}

/** `merge_request_comment` event (BRIEF event conventions). */
export function commentEvent(comment: Comment, mr: MergeRequest, repo: EventRepo, sender: string, requestId: string | null): EventEnvelope {
  return envelope('merge_request_comment', comment.created_at, repo, {
    ...payloadBase('merge_request_comment', 'created', repo, sender, mr),
    comment: { id: comment.id, body: comment.body, file_path: comment.file_path, line_number: comment.line_number, diff_side: comment.diff_side },
  }, requestId);
}
