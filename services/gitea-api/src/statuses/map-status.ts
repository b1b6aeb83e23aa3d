import type { CommitStatus, RequestBody } from '@githost/api-types';
import { giteaIdOf, statusKey } from '@githost/gitea-ids';
import { unprocessable } from '@githost/errors';
import { links } from '../http/links.js';

/** githost commit statuses as Gitea's `CommitStatus` / `CombinedStatus`, and Gitea's `CreateStatusOption`. */

export interface StatusContext {
  publicUrl: string;
  owner: string;
  name: string;
  repoId: string;
  /** Gitea's `Repository` of this repository (the combined status carries it). */
  repository: unknown;
  /** Gitea's `User` for a username; null: a deleted account. */
  user(username: string | null): unknown;
}

export type GiteaStatusState = 'pending' | 'success' | 'error' | 'failure' | 'warning';

export function toGiteaStatus(ctx: StatusContext, s: CommitStatus) {
  return {
    id: giteaIdOf('status', statusKey(ctx.repoId, s.sha, s.context, s.created_at)),
    status: s.state as GiteaStatusState,
    target_url: s.target_url ?? '',
    description: s.description ?? '',
    url: `${links(ctx.publicUrl, ctx.owner, ctx.name).api}/statuses/${s.sha}`,
    context: s.context,
    creator: ctx.user(s.creator.username),
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** Gitea's order of badness (models/git commit status priorities): the combined state is the worst. */
const PRIORITY: Record<GiteaStatusState, number> = { error: 0, failure: 1, warning: 2, pending: 3, success: 4 };

export function worstState(states: GiteaStatusState[]): GiteaStatusState {
  let worst: GiteaStatusState = 'success';
  for (const s of states) if (PRIORITY[s] <= PRIORITY[worst]) worst = s;
  return worst;
}

/**
 * Gitea's `CombinedStatus` from the latest status per context. No statuses: Gitea answers its
 * zero value (empty state and sha, no repository), and so does this.
 */
export function toGiteaCombined(ctx: StatusContext, latest: CommitStatus[]) {
  if (latest.length === 0) {
    return { state: '', sha: '', total_count: 0, statuses: null, repository: null, commit_url: '', url: '' };
  }
  const statuses = latest.map((s) => toGiteaStatus(ctx, s));
  return {
    state: worstState(statuses.map((s) => s.status)),
    sha: latest[0]!.sha,
    total_count: statuses.length,
    statuses,
    repository: ctx.repository,
    commit_url: '',
    url: '',
  };
}

export type CreateStatus = RequestBody<'createStatus'>;

const CREATE_STATES = new Set(['pending', 'success', 'error', 'failure']);

/**
 * Gitea's `CreateStatusOption` -> githost's. Gitea's empty strings are githost's absent values;
 * an empty context is githost's `default`. githost has no `warning` state: 422.
 */
export function toCreateStatus(body: unknown): CreateStatus {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const state = typeof b.state === 'string' ? b.state : '';
  if (state === 'warning') throw unprocessable('githost has no warning state: use pending, success, error or failure');
  if (!CREATE_STATES.has(state)) throw unprocessable(`state must be one of pending, success, error, failure, not ${JSON.stringify(b.state ?? '')}`);
  const out: CreateStatus = { state: state as CreateStatus['state'] };
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const context = text(b.context);
  if (context !== undefined) out.context = context;
  const description = text(b.description);
  if (description !== undefined) out.description = description;
  const targetUrl = text(b.target_url);
  if (targetUrl !== undefined) out.target_url = targetUrl;
  return out;
}

/** Gitea's list sorts for statuses (`sort`); anything else is newest first, githost's order. */
export function sortStatuses<T extends { created_at: string; updated_at: string }>(list: T[], sort: unknown): T[] {
  const by = (key: 'created_at' | 'updated_at', dir: 1 | -1) => [...list].sort((a, b) => dir * (Date.parse(a[key]) - Date.parse(b[key])));
  switch (sort) {
    case 'oldest':
    case 'leastindex':
      return [...list].reverse();
    case 'recentupdate':
      return by('updated_at', -1);
    case 'leastupdate':
      return by('updated_at', 1);
    default:
      return list;
  }
}
