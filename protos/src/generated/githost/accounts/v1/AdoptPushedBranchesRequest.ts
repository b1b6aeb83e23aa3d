// Original file: githost/accounts/v1/accounts.proto


export interface AdoptPushedBranchesRequest {
  'repository_id'?: (string);
  'branches'?: (string)[];
}

export interface AdoptPushedBranchesRequest__Output {
  'repository_id': (string);
  'branches': (string)[];
}
