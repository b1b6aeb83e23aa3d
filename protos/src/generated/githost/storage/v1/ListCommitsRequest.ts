// Original file: githost/storage/v1/storage.proto


export interface ListCommitsRequest {
  'repository_id'?: (string);
  'commit_oid'?: (string);
  'limit'?: (number);
  'offset'?: (number);
  'path'?: (string);
  'not_oid'?: (string);
}

export interface ListCommitsRequest__Output {
  'repository_id': (string);
  'commit_oid': (string);
  'limit': (number);
  'offset': (number);
  'path': (string);
  'not_oid': (string);
}
