// The API's answers the merge-request, settings and admin pages read: their shapes come from
// openapi/openapi.yaml through @githost/api-types.
import type { CommentWithAuthor, MergeRequestWithAuthor } from '@githost/api-types';

export type {
  AdminUser,
  BranchProtection,
  Collaborator,
  CombinedStatus,
  CommentWithAuthor as MrComment,
  CommitStatus,
  Delivery,
  DeliveryAttempt,
  DeliveryDetail,
  MergeRequestDetail,
  Review,
  Webhook,
} from '@githost/api-types';
export type { Comparison } from './types.js';

/** A merge request as the list answers it (with its author's name). */
export type MergeRequest = MergeRequestWithAuthor;

/** The side of a diff a line comment is on. */
export type DiffSide = NonNullable<CommentWithAuthor['diff_side']>;
