// Original file: githost/accounts/v1/accounts.proto


export interface LookupSshKeyRequest {
  'fingerprint'?: (string);
}

export interface LookupSshKeyRequest__Output {
  'fingerprint': (string);
}
