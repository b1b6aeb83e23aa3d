import type { CommitRecord, Diff, DiffEntry } from '@githost/git-records';
import type { Permission } from '@githost/identity';

/** The stored merge request record (seed §2 "Merge request"), as the create response returns it. */
export interface MergeRequest {
  id: string;
  repo_id: string;
  number: number;
  title: string;
  description: string | null;
  author_id: string | null;
  source_branch: string;
  target_branch: string;
  /** Tip of the source branch at creation time (the detail overrides it with the current tip). */
  source_sha: string;
  /** Tip of the source branch as last seen (creation, a push, a reopen); docs/decisions/following-source-branch.md. */
  head_sha: string;
  state: string;
  merged_sha: string | null;
  merged_by: string | null;
  created_at: string;
  updated_at: string;
}

/** seed §2 "Merge request comment". */
export interface Comment {
  id: string;
  mr_id: string;
  author_id: string | null;
  body: string;
  file_path: string | null;
  line_number: number | null;
  diff_side: 'old' | 'new' | null;
  created_at: string;
}

/** CONTRACT §8 activity entry: `GET .../activity` answers the entries as they are kept, so their
 *  type is the API document's, and the compiler holds the service to it. */
export type { Activity } from '@githost/api-types';

/** CONTRACT §5 diff: one definition, shared with the client that builds it. */
export type { Diff, DiffEntry };

/** The repository as the gateway resolved it (a subset of @githost/identity's RepoContext). */
export interface RepoRef {
  id: string;
  owner: string;
  name: string;
  /** git-storage shard holding the repository (its record's, via the signed identity). */
  shard: string;
  private: boolean;
  permission: 'none' | 'read' | 'write' | 'admin';
}

/** Who is calling; null user_id for the bootstrap admin, which has no user record. */
export interface Caller {
  user_id: string | null;
  username: string;
}

export interface UserRecord {
  id: string;
  username: string;
  email: string;
}

export type MergeStrategy = 'fast-forward' | 'merge-commit' | 'squash';

/**
 * What a merge is about to do, written before the target ref moves so a restart can finish a
 * merge whose ref moved but whose database transaction never ran.
 */
export interface MergeIntent {
  mr_id: string;
  repo: { id: string; owner: string; name: string; shard: string };
  merger_id: string | null;
  request_id: string | null;
  target_ref: string | null;
  old_oid: string | null;
  new_oid: string | null;
  strategy: MergeStrategy | null;
}

/** CONTRACT §5 commit record, as browse shows it too. */
export type { CommitRecord };

/** How head relates to base (git-storage Compare). */
export interface Comparison {
  merge_base: string | null;
  ahead_by: number;
  behind_by: number;
  /** Oldest first, at most the requested number. */
  commits: CommitRecord[];
}

/** services/merge-requests/README.md#reviews: what a review records. `reviewer_permission` is the reviewer's access when
 *  the review was given: only write and admin count, and a later change of access does not
 *  rewrite history (GitHub keeps an approval by a collaborator who later lost access too). */
export interface Review {
  id: string;
  mr_id: string;
  author_id: string | null;
  state: ReviewState;
  body: string;
  commit_sha: string;
  reviewer_permission: Permission;
  created_at: string;
}

export type ReviewState = 'approved' | 'changes_requested' | 'commented';

export type StatusState = 'pending' | 'success' | 'failure' | 'error';

/** services/merge-requests/README.md#commit-statuses: one entry of a (repository, sha, context) history. */
export interface CommitStatus {
  id: string;
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  target_url: string | null;
  creator: { username: string };
  created_at: string;
  updated_at: string;
}
