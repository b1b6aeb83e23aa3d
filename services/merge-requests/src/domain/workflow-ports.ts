import type { EventEnvelope } from '@githost/bus';
import type { RefPolicy } from '@githost/ref-policy';
import type { Permission } from '@githost/identity';

/** README "Reviews": what a review records. `reviewer_permission` is the reviewer's access when
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

export type NewReview = Omit<Review, 'id' | 'created_at'>;

export interface ReviewStore {
  /** Inserts the review and the event built from it (outbox) in one transaction. */
  addReview(input: NewReview, event: (review: Review) => EventEnvelope): Promise<Review>;
  /** Oldest first. */
  listReviews(mrId: string): Promise<Review[]>;
}

export type StatusState = 'pending' | 'success' | 'failure' | 'error';

/** README "Commit statuses": one entry of a (repository, sha, context) history. */
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

export interface NewStatus {
  repo_id: string;
  sha: string;
  state: StatusState;
  context: string;
  description: string | null;
  target_url: string | null;
  creator_id: string | null;
  creator_username: string;
}

export interface StatusStore {
  /** Inserts the status and its event in one transaction; 'limit' (nothing written) when the
   *  (sha, context) pair already holds `maxPerContext` statuses. */
  addStatus(input: NewStatus, maxPerContext: number, event: (status: CommitStatus) => EventEnvelope): Promise<CommitStatus | 'limit'>;
  /** Newest first. */
  listStatuses(repoId: string, sha: string, page: { limit: number; offset: number }): Promise<CommitStatus[]>;
  /** The newest status of each context, newest first. */
  latestPerContext(repoId: string, sha: string): Promise<CommitStatus[]>;
}

/** accounts GetRefPolicy. */
export interface RefPolicySource {
  getRefPolicy(repoId: string): Promise<RefPolicy>;
}

/** Reviews, statuses and the ref policy: what the detail's `review_summary` and `status`, and the
 *  merge gate, read. Absent only in unit tests of the seed's own rules, where the detail and the
 *  merge then behave exactly as the seed says. */
export interface WorkflowPorts {
  reviews: ReviewStore;
  statuses: StatusStore;
  policy: RefPolicySource;
}
