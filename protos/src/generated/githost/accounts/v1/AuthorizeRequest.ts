// Original file: githost/accounts/v1/accounts.proto


export interface AuthorizeRequest {
  'user_id'?: (string);
  'bootstrap_admin'?: (boolean);
  'owner'?: (string);
  'name'?: (string);
  'without_site_admin'?: (boolean);
}

export interface AuthorizeRequest__Output {
  'user_id': (string);
  'bootstrap_admin': (boolean);
  'owner': (string);
  'name': (string);
  'without_site_admin': (boolean);
}
