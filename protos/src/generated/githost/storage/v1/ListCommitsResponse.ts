// Original file: githost/storage/v1/storage.proto

import type { Commit as _githost_storage_v1_Commit, Commit__Output as _githost_storage_v1_Commit__Output } from '../../../githost/storage/v1/Commit.js';

export interface ListCommitsResponse {
  'commits'?: (_githost_storage_v1_Commit)[];
}

export interface ListCommitsResponse__Output {
  'commits': (_githost_storage_v1_Commit__Output)[];
}
