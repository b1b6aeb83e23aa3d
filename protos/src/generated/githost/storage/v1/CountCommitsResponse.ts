// Original file: githost/storage/v1/storage.proto

import type { Long } from '@grpc/proto-loader';

export interface CountCommitsResponse {
  'count'?: (number | string | Long);
}

export interface CountCommitsResponse__Output {
  'count': (number);
}
