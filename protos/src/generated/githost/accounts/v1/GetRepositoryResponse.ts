// Original file: githost/accounts/v1/accounts.proto

import type { Repository as _githost_accounts_v1_Repository, Repository__Output as _githost_accounts_v1_Repository__Output } from '../../../githost/accounts/v1/Repository.js';

export interface GetRepositoryResponse {
  'repository'?: (_githost_accounts_v1_Repository | null);
}

export interface GetRepositoryResponse__Output {
  'repository': (_githost_accounts_v1_Repository__Output | null);
}
