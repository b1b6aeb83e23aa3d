// The API's answers the merge-request, settings and admin pages read (openapi/openapi.yaml is
// the source of truth).
import type { Commit, DiffFile } from './types.js';

export type { BranchProtection } from '@githost/ref-policy';

export interface Comparison {
  base: string;
  head: string;
  base_sha: string;
  head_sha: string;
  merge_base: string;
  status: 'ahead' | 'behind' | 'diverged' | 'identical';
  ahead_by: number;
  behind_by: number;
  commits: Commit[];
  diff: DiffFile[];
  diff_truncated: boolean;
}

export interface MergeRequest {
  id: string;
  number: number;
  title: string;
  description: string | null;
  author_id: string;
  author_username?: string | null;
  source_branch: string;
  target_branch: string;
  source_sha?: string;
  head_sha?: string;
  target_sha?: string;
  state: 'open' | 'closed' | 'merged' | (string & {});
  merged_sha: string | null;
  merged_by: string | null;
  created_at: string;
  updated_at: string;
}

export type DiffSide = 'old' | 'new';

export interface MrComment {
  id: string;
  author_username?: string | null;
  body: string;
  file_path: string | null;
  line_number: number | null;
  diff_side: DiffSide | null;
  created_at: string;
}

export interface CommitStatus {
  id: string;
  sha: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  context: string;
  description: string | null;
  target_url: string | null;
  creator: { username: string };
  created_at: string;
}

export interface CombinedStatus {
  state: 'pending' | 'success' | 'failure';
  sha: string;
  total_count: number;
  statuses: CommitStatus[];
}

export interface MergeRequestDetail extends MergeRequest {
  diff: DiffFile[];
  diff_truncated?: boolean;
  mergeable?: boolean | null;
  conflicts?: string[];
  comments: MrComment[];
  review_summary?: { approvals: number; changes_requested: number };
  status?: CombinedStatus;
}

export interface Review {
  id: string;
  author_username: string | null;
  state: 'approved' | 'changes_requested' | 'commented';
  body: string;
  commit_sha: string;
  created_at: string;
  stale: boolean;
}

export interface Collaborator {
  username: string;
  permission: 'read' | 'write';
}

export interface Webhook {
  id: string;
  url: string;
  events: string;
  is_active: boolean;
  created_at: string;
}

export interface Delivery {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: string;
  delivered_at: string | null;
}

export interface DeliveryAttempt {
  number: number;
  status: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  response_body: string | null;
  created_at: string;
}

export interface DeliveryDetail extends Delivery {
  payload: unknown;
  next_attempt_at: string | null;
  attempt_log: DeliveryAttempt[];
}

export interface AdminUser {
  id: string;
  username: string;
  email: string;
  is_admin: boolean;
  suspended: boolean;
  suspended_at: string | null;
  created_at: string;
}
