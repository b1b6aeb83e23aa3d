// The API's answers the merge-request, settings and admin pages name: their shapes come from
// openapi/openapi.yaml through @githost/api-types.
import type { CommentWithAuthor } from '@githost/api-types';

export type { AdminUser, CommentWithAuthor as MrComment, CommitStatus, MergeRequestDetail, Review } from '@githost/api-types';
export type { Comparison } from './types.js';

/** The side of a diff a line comment is on. */
export type DiffSide = NonNullable<CommentWithAuthor['diff_side']>;
