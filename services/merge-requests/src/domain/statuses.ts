import { isFullOid } from '@githost/git-records/object-id';
import { envelope, repositoryOf } from './lifecycle-events.js';
import type { EventEnvelope } from '@githost/bus';
import { notFound, validation } from '@githost/errors';
import { requireCaller, requireVisible, requireWrite } from './access.js';
import type { EventRelay, GitPort } from './ports.js';
import type { Caller, RepoRef } from './types.js';
import type { NewStatus, StatusStore } from './ports.js';
import type { CommitStatus, StatusState } from './types.js';

/** services/merge-requests/README.md#commit-statuses limits, GitHub's: 1,000 statuses per sha and context, a description
 *  of at most 140 characters. Context and URL bounds are ours (GitHub documents none). */
export const STATUS_STATES: readonly StatusState[] = ['pending', 'success', 'failure', 'error'];
export const MAX_STATUSES_PER_CONTEXT = 1000;
export const MAX_DESCRIPTION_CHARS = 140;
export const MAX_CONTEXT_CHARS = 255;
export const MAX_TARGET_URL_CHARS = 2048;
export const DEFAULT_PER_PAGE = 30;
export const MAX_PER_PAGE = 100;

export interface StatusDeps {
  statuses: StatusStore;
  git: GitPort;
  relay: EventRelay;
}

/** `GET .../commits/{ref}/status`: GitHub's combined status. */
export interface CombinedStatus {
  state: 'pending' | 'success' | 'failure';
  sha: string;
  total_count: number;
  statuses: CommitStatus[];
}

export interface StatusPayload {
  event: 'status';
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  target_url: string | null;
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
}

const fieldsOf = (body: unknown): Record<string, unknown> => (body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {});

export interface StatusInput {
  state: StatusState;
  context: string;
  description: string | null;
  target_url: string | null;
}

/** services/merge-requests/README.md#commit-statuses: every field checked before anything is looked up or written. */
export function validateStatus(body: unknown): StatusInput {
  const b = fieldsOf(body);
  if (typeof b.state !== 'string' || !(STATUS_STATES as readonly string[]).includes(b.state)) {
    throw validation(`state must be one of: ${STATUS_STATES.join(', ')}`);
  }
  let context = 'default';
  if (b.context !== undefined && b.context !== null) {
    if (typeof b.context !== 'string' || b.context.trim() === '') throw validation('context must be a non-empty string');
    if (b.context.length > MAX_CONTEXT_CHARS) throw validation(`context must be at most ${MAX_CONTEXT_CHARS} characters`);
    context = b.context;
  }
  let description: string | null = null;
  if (b.description !== undefined && b.description !== null) {
    if (typeof b.description !== 'string') throw validation('description must be a string');
    if (b.description.length > MAX_DESCRIPTION_CHARS) throw validation(`description must be at most ${MAX_DESCRIPTION_CHARS} characters`);
    description = b.description;
  }
  let target_url: string | null = null;
  if (b.target_url !== undefined && b.target_url !== null) {
    if (typeof b.target_url !== 'string' || !isHttpUrl(b.target_url)) throw validation('target_url must be an http or https URL');
    if (b.target_url.length > MAX_TARGET_URL_CHARS) throw validation(`target_url must be at most ${MAX_TARGET_URL_CHARS} characters`);
    target_url = b.target_url;
  }
  return { state: b.state as StatusState, context, description, target_url };
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A full sha that names a commit of this repository (a tag object or a tree is not one). */
async function commitOf(git: GitPort, repoId: string, raw: string): Promise<string> {
  const sha = isFullOid(raw.toLowerCase()) ? raw.toLowerCase() : null;
  const oid = sha ? await git.resolveRevision(repoId, sha) : null;
  if (!oid || oid !== sha) throw notFound(`Commit not found: ${raw}`);
  return sha;
}

/** `POST /statuses/{sha}` (services/merge-requests/README.md#commit-statuses): writers only (a CI token), as the seed's
 *  merge reports a missing write access (400). */
export async function createStatus(deps: StatusDeps, repo: RepoRef | null, caller: Caller | null, rawSha: string, body: unknown, requestId: string | null): Promise<CommitStatus> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  requireWrite(r);
  const input = validateStatus(body);
  const sha = await commitOf(deps.git, r.id, rawSha);
  const record: NewStatus = { repo_id: r.id, sha, ...input, creator_id: who.user_id, creator_username: who.username };
  const created = await deps.statuses.addStatus(record, MAX_STATUSES_PER_CONTEXT, (s) => statusEvent(s, r, who, requestId));
  if (created === 'limit') {
    throw validation(`This commit already has ${MAX_STATUSES_PER_CONTEXT} statuses for context "${input.context}"; no more can be created`);
  }
  deps.relay.kick();
  return created;
}

/** CONTRACT §9 browse order: a branch, then a tag, then a full sha; anything else is unknown. */
export async function resolveRef(git: GitPort, repoId: string, ref: string): Promise<string> {
  const unknown = () => notFound(`Ref not found: ${ref}`);
  if (ref.length === 0 || ref.length > 1024 || ref.startsWith('-')) throw unknown();
  for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`]) {
    const oid = await git.resolveRevision(repoId, candidate);
    if (oid) return oid;
  }
  if (isFullOid(ref.toLowerCase())) {
    const oid = await git.resolveRevision(repoId, ref.toLowerCase());
    if (oid === ref.toLowerCase()) return oid;
  }
  throw unknown();
}

/** `page`/`per_page` as GitHub reads them: out-of-range values fall back to the defaults. */
export function pageOf(query: { page?: unknown; per_page?: unknown }): { page: number; perPage: number } {
  const int = (v: unknown) => (typeof v === 'string' && /^[0-9]{1,6}$/.test(v) ? Number(v) : NaN);
  const page = int(query.page);
  const perPage = int(query.per_page);
  return { page: page >= 1 ? page : 1, perPage: perPage >= 1 ? Math.min(perPage, MAX_PER_PAGE) : DEFAULT_PER_PAGE };
}

/** `GET .../commits/{ref}/statuses`: newest first, paged. */
export async function listStatuses(deps: StatusDeps, repo: RepoRef | null, ref: string, page: { page: number; perPage: number }): Promise<CommitStatus[]> {
  const r = requireVisible(repo);
  const sha = await resolveRef(deps.git, r.id, ref);
  return deps.statuses.listStatuses(r.id, sha, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
}

/** `GET .../commits/{ref}/status`. */
export async function getCombinedStatus(deps: StatusDeps, repo: RepoRef | null, ref: string): Promise<CombinedStatus> {
  const r = requireVisible(repo);
  const sha = await resolveRef(deps.git, r.id, ref);
  return combinedStatusOf(deps.statuses, r.id, sha);
}

export async function combinedStatusOf(statuses: StatusStore, repoId: string, sha: string): Promise<CombinedStatus> {
  const latest = await statuses.latestPerContext(repoId, sha);
  return { state: combine(latest), sha, total_count: latest.length, statuses: latest };
}

/** services/merge-requests/README.md#commit-statuses: `failure` if any is failure or error, `pending` if any is pending or
 *  there are none, else `success`. */
export function combine(latest: Pick<CommitStatus, 'state'>[]): CombinedStatus['state'] {
  if (latest.some((s) => s.state === 'failure' || s.state === 'error')) return 'failure';
  if (latest.length === 0 || latest.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

/** CONTRACT §9 `status` event; the sender is whoever posted it (the CI token's user). */
export function statusEvent(s: CommitStatus, repo: RepoRef, sender: Caller, requestId: string | null): EventEnvelope<StatusPayload> {
  return envelope('status', s.created_at, repo, {
    event: 'status' as const,
    sha: s.sha,
    state: s.state,
    context: s.context,
    description: s.description,
    target_url: s.target_url,
    repository: repositoryOf(repo),
    sender: { username: sender.username },
  }, requestId);
}
