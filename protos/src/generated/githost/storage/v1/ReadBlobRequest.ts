// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadBlobRequest {
  'repository_id'?: (string);
  'commit_oid'?: (string);
  'path'?: (string);
  'max_bytes'?: (number | string | Long);
  'require_commit'?: (boolean);
}

export interface ReadBlobRequest__Output {
  'repository_id': (string);
  'commit_oid': (string);
  'path': (string);
  'max_bytes': (number);
  'require_commit': (boolean);
}
