// Original file: githost/accounts/v1/accounts.proto


export interface GetUsersRequest {
  'ids'?: (string)[];
  'usernames'?: (string)[];
}

export interface GetUsersRequest__Output {
  'ids': (string)[];
  'usernames': (string)[];
}
