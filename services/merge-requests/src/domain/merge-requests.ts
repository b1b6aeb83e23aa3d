import { notFound } from '@githost/errors';
import { requireCaller, requireVisible } from './access.js';
import { usernamesOf } from './authors.js';
import { ACTIVITY_LIMIT, DIFF_MAX_FILES, DIFF_MAX_PATCH_BYTES, DIFF_MAX_TOTAL_PATCH_BYTES, LIST_LIMIT } from './limits.js';
import { commentEvent, lifecycleEvent } from './lifecycle-events.js';
import type { EventRelay, GitPort, KeysetPage, MergeRequestStore, PageRequest, UserDirectory } from './ports.js';
import type { Activity, Caller, Comment, DiffEntry, MergeRequest, RepoRef } from './types.js';
import { isValidBranchName, mrNotFound, parseNumber, stateFilter, validateComment, validateCreate } from './validate.js';
import { workflowOf } from './merge-gate.js';
import type { ReviewSummary } from './reviews.js';
import type { CombinedStatus } from './statuses.js';
import type { WorkflowPorts } from './ports.js';

export interface Deps {
  store: MergeRequestStore;
  git: GitPort;
  users: UserDirectory;
  /** Publishes the outbox soon after a write that enqueued an event. */
  relay?: EventRelay;
  workflow?: WorkflowPorts;
}

export type WithAuthor<T> = T & { author_username: string | null };

export interface MergeRequestDetail extends Omit<WithAuthor<MergeRequest>, 'source_sha'> {
  source_sha?: string;
  target_sha?: string;
  diff: DiffEntry[];
  diff_truncated: boolean;
  comments: WithAuthor<Comment>[];
  mergeable: boolean | null;
  conflicts?: string[];
  /** services/merge-requests/README.md#reviews and #commit-statuses, about the current head. */
  review_summary?: ReviewSummary;
  status?: CombinedStatus;
}

/** A branch name git could never store does not exist either (seed §4 rule 3 message). */
async function tipOf(deps: Deps, repoId: string, branch: string): Promise<string | null> {
  return isValidBranchName(branch) ? deps.git.resolveBranch(repoId, branch) : null;
}

/** seed §4 merge requests rules 1-4, seed §3 "(none) -> open". */
export async function createMergeRequest(deps: Deps, repo: RepoRef | null, caller: Caller | null, body: unknown, requestId: string | null = null): Promise<MergeRequest> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  const input = validateCreate(body);
  // seed §4 merge requests rule 3: the source branch is checked first
  const sourceSha = await tipOf(deps, r.id, input.source_branch);
  if (!sourceSha) throw notFound(`Branch not found: ${input.source_branch}`);
  const targetSha = await tipOf(deps, r.id, input.target_branch);
  if (!targetSha) throw notFound(`Branch not found: ${input.target_branch}`);
  // `opened` (CONTRACT §9) is written with the record; only webhooks that ask for it receive it.
  const created = await deps.store.create(
    { repo_id: r.id, author_id: who.user_id, source_sha: sourceSha, ...input },
    { shard: r.shard, event: (mr) => lifecycleEvent('opened', mr, r, who.username, requestId) },
  );
  deps.relay?.kick();
  return created;
}

/** seed §4 merge requests rule 5 */
export async function listMergeRequests(deps: Deps, repo: RepoRef | null, rawState: unknown): Promise<WithAuthor<MergeRequest>[]> {
  const r = requireVisible(repo);
  return withAuthors(deps, await deps.store.list(r.id, stateFilter(rawState), LIST_LIMIT));
}

/** The same list, one keyset page at a time (docs/decisions/list-paging.md), with the whole list's length. */
export async function listMergeRequestsPage(deps: Deps, repo: RepoRef | null, rawState: unknown, page: PageRequest): Promise<KeysetPage<WithAuthor<MergeRequest>> & { total: number }> {
  const r = requireVisible(repo);
  const state = stateFilter(rawState);
  const [found, total] = await Promise.all([deps.store.listPage(r.id, state, page), deps.store.countByState(r.id, state)]);
  return { ...found, rows: await withAuthors(deps, found.rows), total };
}

/** Each merge request with its author's username, looked up once for the lot. */
async function withAuthors(deps: Deps, records: MergeRequest[]): Promise<WithAuthor<MergeRequest>[]> {
  const nameOf = await usernamesOf(deps.users, records.map((m) => m.author_id));
  return records.map((m) => ({ ...m, author_username: nameOf(m.author_id) }));
}

async function findOrThrow(deps: Deps, repoId: string, rawNumber: string): Promise<MergeRequest> {
  const mr = await deps.store.findByNumber(repoId, parseNumber(rawNumber));
  if (!mr) throw mrNotFound(rawNumber);
  return mr;
}

/** seed §2 detail fields, seed §4 merge requests rule 6, CONTRACT §5 (diff, mergeable). */
export async function getMergeRequest(deps: Deps, repo: RepoRef | null, rawNumber: string): Promise<MergeRequestDetail> {
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps, r.id, rawNumber);
  const [source, target, comments] = await Promise.all([
    tipOf(deps, r.id, mr.source_branch),
    tipOf(deps, r.id, mr.target_branch),
    deps.store.listComments(mr.id),
  ]);
  const both = source !== null && target !== null;
  // CONTRACT §9: the diff is literally target tip -> source tip, no merge base.
  const [diff, check, nameOf, workflow] = await Promise.all([
    both
      ? deps.git.diff(r.id, target, source, { maxFiles: DIFF_MAX_FILES, maxPatchBytes: DIFF_MAX_PATCH_BYTES, maxTotalPatchBytes: DIFF_MAX_TOTAL_PATCH_BYTES })
      : { files: [], truncated: false },
    both ? deps.git.checkMerge(r.id, target, source) : null,
    usernamesOf(deps.users, [mr.author_id, ...comments.map((c) => c.author_id)]),
    // The head as reviews see it: the live source tip, else the recorded one.
    deps.workflow ? workflowOf(deps.workflow, r, mr, source ?? mr.head_sha) : null,
  ]);
  const { source_sha: _stored, ...record } = mr;
  return {
    ...record,
    author_username: nameOf(mr.author_id),
    // CONTRACT §9: absent, not null, when the branch is gone
    ...(source !== null ? { source_sha: source } : {}),
    ...(target !== null ? { target_sha: target } : {}),
    diff: diff.files,
    diff_truncated: diff.truncated,
    comments: comments.map((c) => ({ ...c, author_username: nameOf(c.author_id) })),
    mergeable: check ? check.clean : null,
    ...(check && !check.clean ? { conflicts: check.conflicts } : {}),
    ...(workflow ?? {}),
  };
}

/** seed §4 merge requests rule 7: any authenticated user, any state. */
export async function addComment(deps: Deps, repo: RepoRef | null, caller: Caller | null, rawNumber: string, body: unknown, requestId: string | null = null): Promise<Comment> {
  const who = requireCaller(caller);
  const r = requireVisible(repo);
  const mr = await findOrThrow(deps, r.id, rawNumber);
  const input = validateComment(body);
  const comment = await deps.store.addComment({ mr_id: mr.id, author_id: who.user_id, ...input }, (c) => commentEvent(c, mr, r, who.username, requestId));
  deps.relay?.kick();
  return comment;
}

/** CONTRACT §8: newest first. */
export async function listActivity(deps: Deps, repo: RepoRef | null): Promise<Activity[]> {
  const r = requireVisible(repo);
  return deps.store.listActivity(r.id, ACTIVITY_LIMIT);
}

/** The activity log, one keyset page at a time; read through activity_repo_idx however long it grows. */
export async function listActivityPage(deps: Deps, repo: RepoRef | null, page: PageRequest): Promise<KeysetPage<Activity>> {
  const r = requireVisible(repo);
  return deps.store.activityPage(r.id, page);
}
