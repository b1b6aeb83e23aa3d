// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface WatchRefsRequest {
  'ack_seq'?: (number | string | Long);
}

export interface WatchRefsRequest__Output {
  'ack_seq': (number);
}
