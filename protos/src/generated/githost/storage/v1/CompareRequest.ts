// Original file: githost/storage/v1/storage.proto


export interface CompareRequest {
  'repository_id'?: (string);
  'base_oid'?: (string);
  'head_oid'?: (string);
  'max_commits'?: (number);
}

export interface CompareRequest__Output {
  'repository_id': (string);
  'base_oid': (string);
  'head_oid': (string);
  'max_commits': (number);
}
