// Original file: githost/storage/v1/storage.proto


export interface ResolveMergeTipsRequest {
  'repository_id'?: (string);
  'source_ref'?: (string);
  'target_ref'?: (string);
  'prepare_merge'?: (boolean);
}

export interface ResolveMergeTipsRequest__Output {
  'repository_id': (string);
  'source_ref': (string);
  'target_ref': (string);
  'prepare_merge': (boolean);
}
