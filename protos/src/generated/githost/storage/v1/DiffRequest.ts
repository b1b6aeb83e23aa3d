// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface DiffRequest {
  'repository_id'?: (string);
  'from_oid'?: (string);
  'to_oid'?: (string);
  'max_files'?: (number);
  'max_patch_bytes'?: (number | string | Long);
}

export interface DiffRequest__Output {
  'repository_id': (string);
  'from_oid': (string);
  'to_oid': (string);
  'max_files': (number);
  'max_patch_bytes': (number);
}
