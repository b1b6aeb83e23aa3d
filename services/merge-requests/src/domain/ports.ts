import type { EventEnvelope } from '@githost/bus';
import type { KeysetPage, PageRequest } from '@githost/db';
import type { DiffLimits } from '@githost/git-records';
import type { RefPolicy } from '@githost/ref-policy';
import type { Activity, Comment, CommitStatus, Comparison, Diff, MergeIntent, MergeRequest, MergeStrategy, Review, StatusState, UserRecord } from './types.js';

export type { DiffLimits };
export type { KeysetPage, PageRequest };

/** What the domain needs from git-storage. Branch names are without `refs/heads/`. */
export interface GitPort {
  /** Current tip of `refs/heads/<branch>`, or null when the branch does not exist. */
  resolveBranch(repoId: string, branch: string): Promise<string | null>;
  /** Every branch's tip by name (without `refs/heads/`), in one call: a list's worth of tips. */
  branchTips(repoId: string): Promise<Map<string, string>>;
  /** The commit a fully qualified ref or a hex id names (tags peeled), or null when none. */
  resolveRevision(repoId: string, revision: string): Promise<string | null>;
  isAncestor(repoId: string, ancestor: string, descendant: string): Promise<boolean>;
  /** Both branches' tips (null when absent) and, when both exist, whether the target's is an
   *  ancestor of the source's: resolveBranch twice and isAncestor in one call. `prepareMerge`: a
   *  "no" will lead to writeMerge of the two, which git-storage may start meanwhile. */
  mergeTips(repoId: string, source: string, target: string, prepareMerge?: boolean): Promise<MergeTips>;
  diff(repoId: string, from: string, to: string, limits: DiffLimits): Promise<Diff>;
  checkMerge(repoId: string, ours: string, theirs: string): Promise<{ clean: boolean; conflicts: string[] }>;
  /** Writes the merge commit (parents ours, theirs) without moving a ref. */
  writeMerge(repoId: string, req: WriteMergeInput): Promise<{ ok: true; oid: string } | { ok: false; conflicts: string[] }>;
  /** Compare-and-swap ref move; `mismatch` when the ref is no longer `oldOid`. */
  updateRef(repoId: string, req: UpdateRefInput): Promise<'ok' | 'mismatch'>;
  /** Commits of head not in base, oldest first (at most `maxCommits`), and the counts. */
  compare(repoId: string, base: string, head: string, maxCommits: number): Promise<Comparison>;
}

export interface MergeTips {
  source: string | null;
  target: string | null;
  /** Meaningful only when both tips exist. */
  targetInSource: boolean;
}

export interface Signature {
  name: string;
  email: string;
  timestamp: number;
}

export interface WriteMergeInput {
  ours: string;
  theirs: string;
  author: Signature;
  committer: Signature;
  message: string;
  /** A squash commit: one parent (`ours`), the same merged tree. */
  squash?: boolean;
}

export interface UpdateRefInput {
  ref: string;
  newOid: string;
  oldOid: string;
  context: { owner: string; name: string; pusher: string; requestId: string };
}

export interface UserDirectory {
  /** Users by id; unknown ids are left out. */
  getUsers(ids: string[]): Promise<Map<string, UserRecord>>;
  /** Users by username (exact); unknown names are left out. */
  getUsersByName(usernames: string[]): Promise<Map<string, UserRecord>>;
}

/** What create supplies; the store assigns id, number, state and timestamps. */
export type NewMergeRequest = Pick<MergeRequest, 'repo_id' | 'title' | 'description' | 'author_id' | 'source_branch' | 'target_branch' | 'source_sha'>;

/** Builds an event from a record as it is after the change (written in the same transaction). */
export type EventOf<T> = (record: T) => EventEnvelope;

/** What a comment request supplies; the store assigns id and created_at. */
export type NewComment = Omit<Comment, 'id' | 'created_at'>;

export type ClaimResult = 'claimed' | 'not_open';

/** The ref move a merge is about to make. */
export interface MergePlan {
  target_ref: string;
  old_oid: string;
  new_oid: string;
  strategy: MergeStrategy;
}

export interface MergeCompletion {
  mr_id: string;
  merged_sha: string;
  merged_by: string | null;
  /** Builds the `merge_request` event from the record as it is after the state change. */
  event: (merged: MergeRequest) => EventEnvelope;
}

export interface MergeRequestStore extends LifecycleStore {
  /** Assigns the next number (highest + 1, gapless under concurrency), inserts the record and
   *  the `create_mr` activity in one transaction. */
  create(input: NewMergeRequest, opts?: { shard?: string; event?: EventOf<MergeRequest> }): Promise<MergeRequest>;
  list(repoId: string, state: string, limit: number): Promise<MergeRequest[]>;
  /** The same list, newest first, one keyset page (docs/decisions/list-paging.md). */
  listPage(repoId: string, state: string, page: PageRequest): Promise<KeysetPage<MergeRequest>>;
  /** How many merge requests of the repository are in `state` (the paged list's X-Total-Count). */
  countByState(repoId: string, state: string): Promise<number>;
  findByNumber(repoId: string, number: number): Promise<MergeRequest | null>;
  /** The repository's merge requests with these numbers, in no particular order. */
  findByNumbers(repoId: string, numbers: number[]): Promise<MergeRequest[]>;
  listComments(mrId: string): Promise<Comment[]>;
  /** The comment and its event (when given) in one transaction. */
  addComment(input: NewComment, event?: EventOf<Comment>): Promise<Comment>;
  listActivity(repoId: string, limit: number): Promise<Activity[]>;
  /** The activity log, newest first, one keyset page. */
  activityPage(repoId: string, page: PageRequest): Promise<KeysetPage<Activity>>;

  /** Takes the one merge slot of an open merge request, or answers why not, in one write that
   *  also records the planned ref move before it happens (recovery relies on it). */
  claimMerge(intent: Pick<MergeIntent, 'mr_id' | 'repo' | 'merger_id' | 'request_id'> & { plan?: MergePlan }): Promise<ClaimResult>;
  /** Gives the slot back; nothing was changed in git. */
  releaseMerge(mrId: string): Promise<void>;
  /** Keeps the intent but stops refreshing it: this process cannot tell whether the ref moved, or
   *  could not record that it did, so recovery finishes or undoes the merge a few seconds from now
   *  rather than after the grace a dead process's intent waits for. While the database does not
   *  answer, it is asked again for that long. */
  leaveForRecovery(mrId: string, requestId: string | null): Promise<void>;
  /** In ONE transaction: state merged, merged_sha, merged_by, updated_at, `merge_mr` activity,
   *  the event's outbox row, the intent removed. Null when the merge request was not open. */
  completeMerge(completion: MergeCompletion): Promise<MergeRequest | null>;
  /** completeMerge for a merge whose ref is moving: its writes may be made meanwhile, but nothing
   *  is committed or visible before `moved` resolves true; on false it is all undone (the intent
   *  stays) and the answer is 'not_moved'. */
  completeMergeOnMove(completion: MergeCompletion, moved: Promise<boolean>): Promise<MergeRequest | null | 'not_moved'>;
  /** Intents not touched for `olderThanMs`: candidates for recovery. */
  staleIntents(olderThanMs: number): Promise<MergeIntent[]>;
  findById(mrId: string): Promise<MergeRequest | null>;
}

/** Publishes outbox rows soon after a commit; never awaited by a response. */
export interface EventRelay {
  kick(): void;
}

/** An activity entry written with a change (CONTRACT §8 shape, `action` names what happened). */
export interface ActivityEntry {
  user_id: string | null;
  action: string;
  data: Record<string, unknown>;
}

/** The fields a lifecycle change may set. */
export type MergeRequestFields = Partial<Pick<MergeRequest, 'title' | 'description' | 'state' | 'head_sha' | 'merged_sha' | 'merged_by' | 'target_branch'>>;

/**
 * One change of one merge request with its activity and events, written in one transaction
 * (the events through the outbox, BRIEF "Event conventions").
 */
export interface MergeRequestChange {
  mr_id: string;
  /** Applied only while the record is still in this state: a racing change (a merge, another
   *  close) wins and this one does nothing. */
  from_state: string;
  set: MergeRequestFields;
  activities: ActivityEntry[];
  /** The events, built from the record as it is after the change. */
  events: (updated: MergeRequest) => EventEnvelope[];
  /** Refuse (a `conflict`, nothing applied) while a merge of this merge request is in flight:
   *  the merge records its own outcome; the event is retried after it. */
  unless_merging?: boolean;
}

/** What lifecycle changes, the push consumer and repository deletion need from the store. */
export interface LifecycleStore {
  /** One change in one transaction; null when `from_state` no longer holds. */
  applyChange(change: MergeRequestChange): Promise<MergeRequest | null>;
  /**
   * Every change an event causes, in one transaction that also records the event as handled.
   * False when it was handled before (nothing applied: redelivery is harmless). Throws
   * `conflict` when an `unless_merging` change meets a merge in flight (nothing applied).
   */
  applyEvent(eventId: string, repoId: string, changes: MergeRequestChange[]): Promise<boolean>;
  wasHandled(eventId: string): Promise<boolean>;
  /** The open merge requests whose source or target is `branch`, by number: all a push to it
   *  can change. Lookups made at the same time may share one query; none is answered from an
   *  earlier one. */
  openOnBranch(repoId: string, branch: string): Promise<MergeRequest[]>;
  /** Whether `sha` on `branch` is what a merge through the API wrote there (a merged merge
   *  request into that branch has it as merged_sha). */
  isMergeResult(repoId: string, branch: string, sha: string): Promise<boolean>;
  /** git-storage shard of a repository that has merge requests; null when it has none. */
  shardOf(repoId: string): Promise<string | null>;
  /** Removes everything stored for a repository (merge requests and all that hangs on them). */
  deleteRepository(repoId: string): Promise<void>;
}

export type NewReview = Omit<Review, 'id' | 'created_at'>;

/** A pending review request (services/merge-requests/README.md#review-requests). */
export interface ReviewRequest {
  mr_id: string;
  reviewer_id: string;
  requested_by: string | null;
  created_at: string;
}

export interface ReviewRequestStore {
  /** Adds the requests not already pending, with the events `events` builds for the reviewers
   *  added, in one transaction; 'limit' (nothing added) when more than `max` would be pending. */
  addRequests(mrId: string, reviewerIds: string[], requestedBy: string | null, max: number, events: (added: string[]) => EventEnvelope[]): Promise<'ok' | 'limit'>;
  /** Withdraws these reviewers' requests, with the events for those that were pending, in one
   *  transaction; one not pending is no change. */
  removeRequests(mrId: string, reviewerIds: string[], events: (removed: string[]) => EventEnvelope[]): Promise<void>;
  /** The pending requests of these merge requests, oldest first. */
  listRequests(mrIds: string[]): Promise<ReviewRequest[]>;
}

export interface ReviewStore {
  /** Inserts the review and the event built from it (outbox) in one transaction, in which a
   *  pending review request of its author on that merge request is answered (deleted). */
  addReview(input: NewReview, event: (review: Review) => EventEnvelope): Promise<Review>;
  /** Oldest first. */
  listReviews(mrId: string): Promise<Review[]>;
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
