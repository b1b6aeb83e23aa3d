// Original file: githost/storage/v1/storage.proto


export interface WriteMergeResponse {
  'commit_oid'?: (string);
  'tree_oid'?: (string);
}

export interface WriteMergeResponse__Output {
  'commit_oid': (string);
  'tree_oid': (string);
}
