// Original file: githost/accounts/v1/accounts.proto

import type { Long } from '@grpc/proto-loader';

export interface LookupSshKeyRequest {
  'fingerprint'?: (string);
  'key_id'?: (number | string | Long);
}

export interface LookupSshKeyRequest__Output {
  'fingerprint': (string);
  'key_id': (number);
}
