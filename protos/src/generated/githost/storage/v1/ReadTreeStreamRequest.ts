// Original file: githost/storage/v1/storage.proto


export interface ReadTreeStreamRequest {
  'repository_id'?: (string);
  'commit_oid'?: (string);
  'path'?: (string);
  'require_commit'?: (boolean);
}

export interface ReadTreeStreamRequest__Output {
  'repository_id': (string);
  'commit_oid': (string);
  'path': (string);
  'require_commit': (boolean);
}
