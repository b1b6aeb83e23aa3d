// Original file: githost/accounts/v1/accounts.proto

import type { User as _githost_accounts_v1_User, User__Output as _githost_accounts_v1_User__Output } from '../../../githost/accounts/v1/User.js';
import type { Repository as _githost_accounts_v1_Repository, Repository__Output as _githost_accounts_v1_Repository__Output } from '../../../githost/accounts/v1/Repository.js';
import type { Long } from '@grpc/proto-loader';

export interface LookupSshKeyResponse {
  'outcome'?: (string);
  'key_id'?: (number | string | Long);
  'user'?: (_githost_accounts_v1_User | null);
  'repository'?: (_githost_accounts_v1_Repository | null);
  'read_only'?: (boolean);
}

export interface LookupSshKeyResponse__Output {
  'outcome': (string);
  'key_id': (number);
  'user': (_githost_accounts_v1_User__Output | null);
  'repository': (_githost_accounts_v1_Repository__Output | null);
  'read_only': (boolean);
}
