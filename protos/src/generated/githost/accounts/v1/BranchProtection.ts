// Original file: githost/accounts/v1/accounts.proto


export interface BranchProtection {
  'pattern'?: (string);
  'allow_force_pushes'?: (boolean);
  'allow_deletions'?: (boolean);
  'required_approvals'?: (number);
  'required_status_checks'?: (string)[];
  'dismiss_stale_approvals'?: (boolean);
  'push'?: (string);
}

export interface BranchProtection__Output {
  'pattern': (string);
  'allow_force_pushes': (boolean);
  'allow_deletions': (boolean);
  'required_approvals': (number);
  'required_status_checks': (string)[];
  'dismiss_stale_approvals': (boolean);
  'push': (string);
}
