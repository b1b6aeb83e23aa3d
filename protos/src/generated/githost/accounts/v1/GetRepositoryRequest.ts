// Original file: githost/accounts/v1/accounts.proto


export interface GetRepositoryRequest {
  'id'?: (string);
}

export interface GetRepositoryRequest__Output {
  'id': (string);
}
