import type { RequestBody } from '@githost/api-types';
import { notFound, unprocessable } from '@githost/errors';

/**
 * Gitea's request bodies for pull requests -> githost's merge request requests. Fields githost
 * has no place for (assignees, labels, milestone, due date) are refused only when they ask for
 * something: an empty list or zero is what Gitea's own clients send by default.
 */

const obj = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function refuseUnits(b: Record<string, unknown>): void {
  const asks = (v: unknown) => (Array.isArray(v) ? v.length > 0 : typeof v === 'number' ? v !== 0 : typeof v === 'string' ? v !== '' : v !== undefined && v !== null && v !== false);
  for (const [field, unit] of [
    ['labels', 'labels'],
    ['milestone', 'milestones'],
    ['assignee', 'assignees'],
    ['assignees', 'assignees'],
    ['due_date', 'due dates'],
  ] as const) {
    if (asks(b[field])) throw unprocessable(`githost has no ${unit}: ${field} cannot be set`);
  }
}

/** `head` is `branch` or `owner:branch`; githost merge requests stay within one repository. */
export function headBranchOf(head: string, owner: string): string {
  const colon = head.indexOf(':');
  if (colon < 0) return head;
  // Gitea answers 404 when the head repository is not this one or a fork of it.
  if (head.slice(0, colon) !== owner) throw notFound('head repository not found: githost merge requests stay within one repository');
  return head.slice(colon + 1);
}

export type CreateMergeRequest = Required<Pick<RequestBody<'createMergeRequest'>, 'title' | 'source_branch' | 'target_branch'>> & Pick<RequestBody<'createMergeRequest'>, 'description'>;

/** Gitea's `CreatePullRequestOption` -> githost's create body (githost validates the rest). */
export function toCreateMergeRequest(body: unknown, owner: string): { request: CreateMergeRequest; reviewers: string[] } {
  const b = obj(body);
  refuseUnits(b);
  if (Array.isArray(b.team_reviewers) && b.team_reviewers.length > 0) throw unprocessable('githost has no teams: team_reviewers cannot be set');
  const head = str(b.head) ?? '';
  const reviewers = Array.isArray(b.reviewers) ? b.reviewers.filter((r): r is string => typeof r === 'string') : [];
  return {
    request: {
      title: str(b.title) ?? '',
      description: str(b.body) || null,
      source_branch: head === '' ? '' : headBranchOf(head, owner),
      target_branch: str(b.base) ?? '',
    },
    reviewers,
  };
}

export type UpdateMergeRequest = RequestBody<'updateMergeRequest'> & { target_branch?: string };

/**
 * Gitea's `EditPullRequestOption` -> githost's PATCH body. Only what is given changes; Gitea's
 * `state` is `open` or `closed` (a merged pull request cannot change state: 409 from githost).
 */
export function toUpdateMergeRequest(body: unknown): UpdateMergeRequest {
  const b = obj(body);
  refuseUnits(b);
  if (b.unset_due_date === true) throw unprocessable('githost has no due dates: unset_due_date cannot be set');
  const out: UpdateMergeRequest = {};
  const title = str(b.title);
  if (title !== undefined && title !== '') out.title = title;
  // Gitea keeps the body unless the field is present; present and empty clears it.
  if (typeof b.body === 'string') out.description = b.body === '' ? null : b.body;
  const base = str(b.base);
  if (base !== undefined && base !== '') out.target_branch = base;
  if (b.state !== undefined && b.state !== null) {
    if (b.state !== 'open' && b.state !== 'closed') throw unprocessable(`state must be open or closed, not ${String(b.state)}`);
    out.state = b.state;
  }
  return out;
}

export type MergeBody = NonNullable<RequestBody<'mergeMergeRequest'>>;

/** Gitea's merge style (`Do`) -> githost's strategy. */
const STRATEGIES: Record<string, MergeBody['strategy']> = {
  merge: 'merge-commit',
  squash: 'squash',
  'fast-forward-only': 'fast-forward-only',
};

/** Gitea's merge styles githost has none of; answered as Gitea answers a style the repository does not allow. */
const UNSUPPORTED_STYLES = new Set(['rebase', 'rebase-merge', 'manually-merged']);

/**
 * Gitea's `MergePullRequestOption` -> githost's merge body, or the style githost cannot do
 * (answered 405 as Gitea answers a style the repository does not allow). Gitea's default style
 * is `merge`, which on Gitea always writes a merge commit. `MergeTitleField` and
 * `MergeMessageField` become the commit's title and message; `head_commit_id` the reviewed head
 * (409 when it moved).
 */
export function toMergeBody(body: unknown): { body: MergeBody } | { unsupported: string } {
  const b = obj(body);
  const style = str(b.Do) || 'merge';
  if (b.merge_when_checks_succeed === true) return { unsupported: 'merge_when_checks_succeed' };
  const strategy = UNSUPPORTED_STYLES.has(style) || !Object.hasOwn(STRATEGIES, style) ? undefined : STRATEGIES[style];
  if (!strategy) return { unsupported: style };
  const out: MergeBody = { strategy };
  const title = str(b.MergeTitleField)?.trim();
  if (title) out.commit_title = title;
  const message = str(b.MergeMessageField)?.trim();
  if (message) out.commit_message = message;
  const head = str(b.head_commit_id);
  if (head) out.sha = head;
  if (b.delete_branch_after_merge === true) out.delete_source_branch = true;
  return { body: out };
}

/** Gitea's message for a merge style the repository does not allow (its own wording, kept). */
export const invalidStyleMessage = (style: string) => `${style} is not allowed an allowed merge style for this repository`;
