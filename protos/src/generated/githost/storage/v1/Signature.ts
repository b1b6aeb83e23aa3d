// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface Signature {
  'name'?: (string);
  'email'?: (string);
  'timestamp'?: (number | string | Long);
}

export interface Signature__Output {
  'name': (string);
  'email': (string);
  'timestamp': (number);
}
