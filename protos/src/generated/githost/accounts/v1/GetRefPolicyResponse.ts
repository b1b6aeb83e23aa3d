// Original file: githost/accounts/v1/accounts.proto

import type { BranchProtection as _githost_accounts_v1_BranchProtection, BranchProtection__Output as _githost_accounts_v1_BranchProtection__Output } from '../../../githost/accounts/v1/BranchProtection.js';

export interface GetRefPolicyResponse {
  'default_branch'?: (string);
  'allow_tag_changes'?: (boolean);
  'protections'?: (_githost_accounts_v1_BranchProtection)[];
}

export interface GetRefPolicyResponse__Output {
  'default_branch': (string);
  'allow_tag_changes': (boolean);
  'protections': (_githost_accounts_v1_BranchProtection__Output)[];
}
