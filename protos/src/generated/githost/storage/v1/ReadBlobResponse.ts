// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadBlobResponse {
  'oid'?: (string);
  'size'?: (number | string | Long);
  'mode'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'too_large'?: (boolean);
}

export interface ReadBlobResponse__Output {
  'oid': (string);
  'size': (number);
  'mode': (string);
  'data': (Buffer);
  'too_large': (boolean);
}
