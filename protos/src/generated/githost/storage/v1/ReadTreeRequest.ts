// Original file: githost/storage/v1/storage.proto


export interface ReadTreeRequest {
  'repository_id'?: (string);
  'commit_oid'?: (string);
  'path'?: (string);
  'require_commit'?: (boolean);
  'limit'?: (number);
}

export interface ReadTreeRequest__Output {
  'repository_id': (string);
  'commit_oid': (string);
  'path': (string);
  'require_commit': (boolean);
  'limit': (number);
}
