// The API's answers the merge-request, settings and admin pages read: their shapes come from
// openapi/openapi.yaml through @githost/api-types; git data (diffs) as git-records declares it.
import type { MergeRequestDetail as ApiMergeRequestDetail, MergeRequestWithAuthor } from '@githost/api-types';
import type { DiffFile } from './types.js';

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
  Review,
  Webhook,
} from '@githost/api-types';
export type { Comparison } from './types.js';

/** A merge request as the list answers it (with its author's name). */
export type MergeRequest = MergeRequestWithAuthor;

/** `GET .../merge-requests/{number}`: the record with its author's name plus the detail
 *  (docs/api-spec.md §2), its diff as git-records builds it. */
export type MergeRequestDetail = Omit<ApiMergeRequestDetail, 'diff'> & { diff: DiffFile[] };

export type DiffSide = 'old' | 'new';
