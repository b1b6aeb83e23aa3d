// Original file: githost/storage/v1/storage.proto


export interface CountCommitsRequest {
  'repository_id'?: (string);
  'commit_oid'?: (string);
  'path'?: (string);
  'not_oid'?: (string);
}

export interface CountCommitsRequest__Output {
  'repository_id': (string);
  'commit_oid': (string);
  'path': (string);
  'not_oid': (string);
}
