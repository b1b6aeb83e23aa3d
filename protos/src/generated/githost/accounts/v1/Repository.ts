// Original file: githost/accounts/v1/accounts.proto


export interface Repository {
  'id'?: (string);
  'owner'?: (string);
  'name'?: (string);
  'default_branch'?: (string);
  'private'?: (boolean);
  'shard'?: (string);
  'description'?: (string);
  'owner_id'?: (string);
  'created_at'?: (string);
}

export interface Repository__Output {
  'id': (string);
  'owner': (string);
  'name': (string);
  'default_branch': (string);
  'private': (boolean);
  'shard': (string);
  'description': (string);
  'owner_id': (string);
  'created_at': (string);
}
