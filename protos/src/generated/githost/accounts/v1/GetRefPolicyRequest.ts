// Original file: githost/accounts/v1/accounts.proto


export interface GetRefPolicyRequest {
  'repository_id'?: (string);
}

export interface GetRefPolicyRequest__Output {
  'repository_id': (string);
}
