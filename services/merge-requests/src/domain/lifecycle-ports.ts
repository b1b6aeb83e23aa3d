import type { EventEnvelope } from '@githost/bus';
import type { MergeRequest } from './types.js';

/** An activity entry written with a change (CONTRACT §8 shape, `action` names what happened). */
export interface ActivityEntry {
  user_id: string | null;
  action: string;
  data: Record<string, unknown>;
}

/** The fields a lifecycle change may set. */
export type MergeRequestFields = Partial<Pick<MergeRequest, 'title' | 'description' | 'state' | 'head_sha' | 'merged_sha' | 'merged_by'>>;

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
