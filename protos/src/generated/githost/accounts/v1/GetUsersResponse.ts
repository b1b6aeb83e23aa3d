// Original file: githost/accounts/v1/accounts.proto

import type { User as _githost_accounts_v1_User, User__Output as _githost_accounts_v1_User__Output } from '../../../githost/accounts/v1/User.js';

export interface GetUsersResponse {
  'users'?: (_githost_accounts_v1_User)[];
}

export interface GetUsersResponse__Output {
  'users': (_githost_accounts_v1_User__Output)[];
}
