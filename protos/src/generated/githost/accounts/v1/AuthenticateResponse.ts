// Original file: githost/accounts/v1/accounts.proto

import type { User as _githost_accounts_v1_User, User__Output as _githost_accounts_v1_User__Output } from '../../../githost/accounts/v1/User.js';

export interface AuthenticateResponse {
  'user'?: (_githost_accounts_v1_User | null);
  'bootstrap_admin'?: (boolean);
  'scopes'?: (string)[];
  'expires_at'?: (string);
  'session_id'?: (string);
}

export interface AuthenticateResponse__Output {
  'user': (_githost_accounts_v1_User__Output | null);
  'bootstrap_admin': (boolean);
  'scopes': (string)[];
  'expires_at': (string);
  'session_id': (string);
}
