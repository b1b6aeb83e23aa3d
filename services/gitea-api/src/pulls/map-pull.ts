import type { DiffFile, MergeFacts, MergeRequestDetail, MergeRequestWithAuthor } from '@githost/api-types';
import { giteaIdOf, pullRequestKey } from '@githost/gitea-ids';
import { links } from '../http/links.js';

/**
 * githost merge requests as Gitea pull requests (Gitea's `PullRequest`, `ChangedFile`,
 * `CreatePullRequestOption`, `EditPullRequestOption`, `MergePullRequestOption`). Pure: the
 * repository and user JSON come from the repos and users mappings through the context.
 */
export interface PullContext {
  /** githost's public URL, without a trailing slash. */
  publicUrl: string;
  owner: string;
  name: string;
  /** The repository's githost uuid: the key of its pull requests' integer ids. */
  repoId: string;
  /** Gitea's `Repository` of this repository (base and head `repo`). */
  repository: { id: number };
  /** Gitea's `User` for a username; null: a deleted account. */
  user(username: string | null): unknown;
}

export function pullHtmlUrl(ctx: Pick<PullContext, 'publicUrl' | 'owner' | 'name'>, number: number): string {
  return `${links(ctx.publicUrl, ctx.owner, ctx.name).html}/-/merge-requests/${number}`;
}

export function pullId(repoId: string, number: number): number {
  return giteaIdOf('pull_request', pullRequestKey(repoId, number));
}

type AnyMergeRequest = MergeRequestWithAuthor | MergeRequestDetail;

function isDetail(mr: AnyMergeRequest): mr is MergeRequestDetail {
  return Array.isArray((mr as MergeRequestDetail).diff);
}

/** githost `open` | `closed` | `merged` -> Gitea's `open` | `closed` (a merged one is closed with `merged: true`). */
export const giteaPullState = (state: string): 'open' | 'closed' => (state === 'open' ? 'open' : 'closed');

/** What githost's merge-facts answer says of one merge request (its list records lack it). */
export type PullFacts = Pick<MergeFacts, 'mergeable' | 'merged_by_username' | 'requested_reviewers'>;

/**
 * One merge request as Gitea's `PullRequest`. `mergeable` is githost's check (the detail's, or
 * the merge facts' for a list record), false when it could not be made (a branch gone); without
 * either, an open one answers true, as Gitea does before its check. `merged_by` and
 * `requested_reviewers` come from the facts. From a list record the line counts, which need the diff, are left out.
 */
export function toGiteaPull(ctx: PullContext, mr: AnyMergeRequest, facts?: PullFacts) {
  const html = pullHtmlUrl(ctx, mr.number);
  const merged = mr.state === 'merged';
  const closed = mr.state !== 'open';
  const detail = isDetail(mr) ? mr : null;
  const branch = (ref: string, sha: string) => ({ label: ref, ref, sha, repo_id: ctx.repository.id, repo: ctx.repository });
  const headSha = detail?.source_sha ?? mr.head_sha;
  const counts = detail ? diffCounts(detail.diff) : null;
  return {
    id: pullId(ctx.repoId, mr.number),
    url: html,
    number: mr.number,
    user: ctx.user(mr.author_username ?? null),
    title: mr.title,
    body: mr.description ?? '',
    labels: [] as unknown[],
    milestone: null,
    assignee: null,
    assignees: [] as unknown[],
    requested_reviewers: (facts?.requested_reviewers ?? []).map((username) => ctx.user(username)),
    requested_reviewers_teams: [] as unknown[],
    state: giteaPullState(mr.state),
    draft: false,
    is_locked: false,
    comments: detail ? detail.comments.filter((c) => c.file_path === null).length : 0,
    review_comments: detail ? detail.comments.filter((c) => c.file_path !== null).length : 0,
    ...(counts ?? {}),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    mergeable: mr.state === 'open' && (detail ? detail.mergeable === true : facts ? facts.mergeable === true : true),
    merged,
    // githost sets updated_at when it merges or closes and keeps no separate time (docs/decisions/gitea-api.md#pull-requests).
    merged_at: merged ? mr.updated_at : null,
    merge_commit_sha: merged ? mr.merged_sha : null,
    merged_by: merged && facts ? ctx.user(facts.merged_by_username) : null,
    allow_maintainer_edit: false,
    base: branch(mr.target_branch, detail?.target_sha ?? ''),
    head: branch(mr.source_branch, headSha),
    merge_base: '',
    due_date: null,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    closed_at: closed ? mr.updated_at : null,
    pin_order: 0,
  };
}

export type GiteaPull = ReturnType<typeof toGiteaPull>;

/**
 * `JSON.stringify(pulls)` as UTF-8, byte for byte, with the `Repository` both branches of each
 * pull request carry (Gitea's shape) serialised and encoded once per answer and copied in, rather
 * than serialised twice per pull request and the whole string encoded again: a page of 50 is
 * about 270 KB, nine tenths of it those copies; this costs about half the CPU of
 * `res.json` (docs/decisions/gitea-api.md#throughput-the-cost-of-a-face-over-the-gateway).
 * Every pull request's branches carry the same `repository` (toGiteaPull's `ctx.repository`).
 */
export function giteaPullListJson(pulls: GiteaPull[], repository: unknown): Buffer {
  const repo = Buffer.from(JSON.stringify(repository));
  const parts: Buffer[] = [];
  const open = (branch: GiteaPull['base']) => {
    const { repo: _repo, ...rest } = branch;
    return `${JSON.stringify(rest).slice(0, -1)},"repo":`;
  };
  pulls.forEach((pull, i) => {
    const { base, head, merge_base, due_date, created_at, updated_at, closed_at, pin_order, ...front } = pull;
    const tail = JSON.stringify({ merge_base, due_date, created_at, updated_at, closed_at, pin_order });
    parts.push(Buffer.from(`${i === 0 ? '[' : ','}${JSON.stringify(front).slice(0, -1)},"base":${open(base)}`), repo, Buffer.from(`},"head":${open(head)}`), repo, Buffer.from(`},${tail.slice(1)}`));
  });
  parts.push(Buffer.from(pulls.length === 0 ? '[]' : ']'));
  return Buffer.concat(parts);
}

function diffCounts(diff: DiffFile[]) {
  let additions = 0;
  let deletions = 0;
  for (const f of diff) {
    additions += f.additions;
    deletions += f.deletions;
  }
  return { additions, deletions, changed_files: diff.length };
}

/** githost's diff status -> Gitea's ChangedFile status (Gitea: added, deleted, modified, renamed, copied, changed). */
const FILE_STATUS: Record<DiffFile['status'], string> = {
  added: 'added',
  deleted: 'deleted',
  modified: 'modified',
  renamed: 'renamed',
  type_changed: 'changed',
};

/** One file of a merge request's diff as Gitea's `ChangedFile`; links point at the head commit. */
export function toGiteaChangedFile(ctx: Pick<PullContext, 'publicUrl' | 'owner' | 'name'>, headSha: string, f: DiffFile) {
  const at = links(ctx.publicUrl, ctx.owner, ctx.name);
  return {
    filename: f.path,
    previous_filename: f.status === 'renamed' ? (f.old_path ?? '') : '',
    status: FILE_STATUS[f.status],
    additions: f.additions,
    deletions: f.deletions,
    changes: f.additions + f.deletions,
    html_url: at.blob(headSha, f.path),
    contents_url: at.apiContents(f.path, headSha),
    raw_url: at.raw(headSha, f.path),
  };
}

/** githost states behind each of Gitea's `state` values (a merged pull request is a closed one). */
export const PULL_STATES: Record<string, string[]> = { open: ['open'], closed: ['closed', 'merged'], all: ['open', 'closed', 'merged'] };

const time = (s: string) => Date.parse(s);

const SORTS = ['oldest', 'recentupdate', 'leastupdate'];

/** Whether Gitea's `sort` is its default order, newest first by creation: githost's own list order. */
export const isNewestFirst = (sort: unknown): boolean => !(typeof sort === 'string' && SORTS.includes(sort));

/** Gitea's list sorts; anything else (its default, `priority`, the comment counts githost's list lacks) newest first. */
export function sortPulls(list: MergeRequestWithAuthor[], sort: unknown): MergeRequestWithAuthor[] {
  const byNumber = (a: MergeRequestWithAuthor, b: MergeRequestWithAuthor) => b.number - a.number;
  const cmp: Record<string, (a: MergeRequestWithAuthor, b: MergeRequestWithAuthor) => number> = {
    oldest: (a, b) => time(a.created_at) - time(b.created_at) || a.number - b.number,
    recentupdate: (a, b) => time(b.updated_at) - time(a.updated_at) || byNumber(a, b),
    leastupdate: (a, b) => time(a.updated_at) - time(b.updated_at) || a.number - b.number,
  };
  const key = typeof sort === 'string' && Object.hasOwn(cmp, sort) ? sort : '';
  return [...list].sort(cmp[key] ?? ((a, b) => time(b.created_at) - time(a.created_at) || byNumber(a, b)));
}
