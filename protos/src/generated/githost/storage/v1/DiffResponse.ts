// Original file: githost/storage/v1/storage.proto

import type { DiffFile as _githost_storage_v1_DiffFile, DiffFile__Output as _githost_storage_v1_DiffFile__Output } from '../../../githost/storage/v1/DiffFile.js';

export interface DiffResponse {
  'file'?: (_githost_storage_v1_DiffFile | null);
  'truncated'?: (boolean);
}

export interface DiffResponse__Output {
  'file': (_githost_storage_v1_DiffFile__Output | null);
  'truncated': (boolean);
}
