// Original file: githost/accounts/v1/accounts.proto


export interface AuthenticateRequest {
  'token'?: (string);
}

export interface AuthenticateRequest__Output {
  'token': (string);
}
