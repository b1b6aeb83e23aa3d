// Original file: githost/storage/v1/storage.proto

import type { Commit as _githost_storage_v1_Commit, Commit__Output as _githost_storage_v1_Commit__Output } from '../../../githost/storage/v1/Commit.js';

export interface CompareResponse {
  'merge_base'?: (string);
  'ahead_by'?: (number);
  'behind_by'?: (number);
  'commits'?: (_githost_storage_v1_Commit)[];
}

export interface CompareResponse__Output {
  'merge_base': (string);
  'ahead_by': (number);
  'behind_by': (number);
  'commits': (_githost_storage_v1_Commit__Output)[];
}
