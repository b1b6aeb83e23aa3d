// Original file: githost/accounts/v1/accounts.proto


export interface User {
  'id'?: (string);
  'username'?: (string);
  'email'?: (string);
  'is_admin'?: (boolean);
}

export interface User__Output {
  'id': (string);
  'username': (string);
  'email': (string);
  'is_admin': (boolean);
}
