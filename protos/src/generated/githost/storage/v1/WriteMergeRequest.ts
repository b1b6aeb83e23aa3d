// Original file: githost/storage/v1/storage.proto

import type { Signature as _githost_storage_v1_Signature, Signature__Output as _githost_storage_v1_Signature__Output } from '../../../githost/storage/v1/Signature.js';

export interface WriteMergeRequest {
  'repository_id'?: (string);
  'ours_oid'?: (string);
  'theirs_oid'?: (string);
  'author'?: (_githost_storage_v1_Signature | null);
  'committer'?: (_githost_storage_v1_Signature | null);
  'message'?: (string);
  'squash'?: (boolean);
}

export interface WriteMergeRequest__Output {
  'repository_id': (string);
  'ours_oid': (string);
  'theirs_oid': (string);
  'author': (_githost_storage_v1_Signature__Output | null);
  'committer': (_githost_storage_v1_Signature__Output | null);
  'message': (string);
  'squash': (boolean);
}
