// Original file: githost/storage/v1/storage.proto


export interface MergeBaseResponse {
  'oid'?: (string);
}

export interface MergeBaseResponse__Output {
  'oid': (string);
}
