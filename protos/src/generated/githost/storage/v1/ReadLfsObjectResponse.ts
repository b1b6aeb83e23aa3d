// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadLfsObjectResponse {
  'size'?: (number | string | Long);
  'data'?: (Buffer | Uint8Array | string);
}

export interface ReadLfsObjectResponse__Output {
  'size': (number);
  'data': (Buffer);
}
