// Original file: githost/storage/v1/storage.proto


export interface CheckMergeResponse {
  'clean'?: (boolean);
  'conflicts'?: (string)[];
  'tree_oid'?: (string);
}

export interface CheckMergeResponse__Output {
  'clean': (boolean);
  'conflicts': (string)[];
  'tree_oid': (string);
}
