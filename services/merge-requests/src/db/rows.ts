import { iso } from '@githost/db';
import type { Activity, Comment, MergeIntent, MergeRequest, MergeStrategy } from '../domain/types.js';

export const MR_COLUMNS =
  'id, repo_id, number, title, description, author_id, source_branch, target_branch, source_sha, head_sha, state, merged_sha, merged_by, created_at, updated_at';

export function toMergeRequest(r: Record<string, unknown>): MergeRequest {
  return {
    id: String(r.id),
    repo_id: String(r.repo_id),
    number: Number(r.number),
    title: String(r.title),
    description: (r.description as string | null) ?? null,
    author_id: (r.author_id as string | null) ?? null,
    source_branch: String(r.source_branch),
    target_branch: String(r.target_branch),
    source_sha: String(r.source_sha),
    head_sha: String(r.head_sha ?? r.source_sha),
    state: String(r.state),
    merged_sha: (r.merged_sha as string | null) ?? null,
    merged_by: (r.merged_by as string | null) ?? null,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export const COMMENT_COLUMNS = 'id, mr_id, author_id, body, file_path, line_number, diff_side, created_at';

export function toComment(r: Record<string, unknown>): Comment {
  return {
    id: String(r.id),
    mr_id: String(r.mr_id),
    author_id: (r.author_id as string | null) ?? null,
    body: String(r.body),
    file_path: (r.file_path as string | null) ?? null,
    line_number: r.line_number === null || r.line_number === undefined ? null : Number(r.line_number),
    diff_side: (r.diff_side as 'old' | 'new' | null) ?? null,
    created_at: iso(r.created_at),
  };
}

export function toActivity(r: Record<string, unknown>): Activity {
  return {
    id: String(r.id),
    action: String(r.action),
    user_id: (r.user_id as string | null) ?? null,
    data: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>,
    created_at: iso(r.created_at),
  };
}

export function toIntent(r: Record<string, unknown>): MergeIntent {
  return {
    mr_id: String(r.mr_id),
    repo: { id: String(r.repo_id), owner: String(r.repo_owner), name: String(r.repo_name), shard: String(r.repo_shard) },
    merger_id: (r.merger_id as string | null) ?? null,
    request_id: (r.request_id as string | null) ?? null,
    target_ref: (r.target_ref as string | null) ?? null,
    old_oid: (r.old_oid as string | null) ?? null,
    new_oid: (r.new_oid as string | null) ?? null,
    strategy: (r.strategy as MergeStrategy | null) ?? null,
  };
}
