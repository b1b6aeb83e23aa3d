// Original file: githost/storage/v1/storage.proto

import type { ChangedFile as _githost_storage_v1_ChangedFile, ChangedFile__Output as _githost_storage_v1_ChangedFile__Output } from '../../../githost/storage/v1/ChangedFile.js';
import type { Long } from '@grpc/proto-loader';

export interface CommitChanges {
  'oid'?: (string);
  'additions'?: (number | string | Long);
  'deletions'?: (number | string | Long);
  'files'?: (_githost_storage_v1_ChangedFile)[];
  'files_truncated'?: (boolean);
}

export interface CommitChanges__Output {
  'oid': (string);
  'additions': (number);
  'deletions': (number);
  'files': (_githost_storage_v1_ChangedFile__Output)[];
  'files_truncated': (boolean);
}
