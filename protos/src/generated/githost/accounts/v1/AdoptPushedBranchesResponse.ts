// Original file: githost/accounts/v1/accounts.proto


export interface AdoptPushedBranchesResponse {
  'default_branch'?: (string);
}

export interface AdoptPushedBranchesResponse__Output {
  'default_branch': (string);
}
