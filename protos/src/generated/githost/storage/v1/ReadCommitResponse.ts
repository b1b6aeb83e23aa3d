// Original file: githost/storage/v1/storage.proto

import type { Commit as _githost_storage_v1_Commit, Commit__Output as _githost_storage_v1_Commit__Output } from '../../../githost/storage/v1/Commit.js';

export interface ReadCommitResponse {
  'commit'?: (_githost_storage_v1_Commit | null);
}

export interface ReadCommitResponse__Output {
  'commit': (_githost_storage_v1_Commit__Output | null);
}
