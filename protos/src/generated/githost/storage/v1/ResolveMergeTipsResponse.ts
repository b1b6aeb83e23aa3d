// Original file: githost/storage/v1/storage.proto


export interface ResolveMergeTipsResponse {
  'source_oid'?: (string);
  'target_oid'?: (string);
  'target_in_source'?: (boolean);
}

export interface ResolveMergeTipsResponse__Output {
  'source_oid': (string);
  'target_oid': (string);
  'target_in_source': (boolean);
}
