// Original file: githost/storage/v1/storage.proto


export interface CheckMergeRequest {
  'repository_id'?: (string);
  'ours_oid'?: (string);
  'theirs_oid'?: (string);
}

export interface CheckMergeRequest__Output {
  'repository_id': (string);
  'ours_oid': (string);
  'theirs_oid': (string);
}
