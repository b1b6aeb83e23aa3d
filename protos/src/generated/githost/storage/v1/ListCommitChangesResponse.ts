// Original file: githost/storage/v1/storage.proto

import type { CommitChanges as _githost_storage_v1_CommitChanges, CommitChanges__Output as _githost_storage_v1_CommitChanges__Output } from '../../../githost/storage/v1/CommitChanges.js';

export interface ListCommitChangesResponse {
  'commits'?: (_githost_storage_v1_CommitChanges)[];
}

export interface ListCommitChangesResponse__Output {
  'commits': (_githost_storage_v1_CommitChanges__Output)[];
}
