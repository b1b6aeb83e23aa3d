// Original file: githost/storage/v1/storage.proto


export interface MergeBaseRequest {
  'repository_id'?: (string);
  'left_oid'?: (string);
  'right_oid'?: (string);
}

export interface MergeBaseRequest__Output {
  'repository_id': (string);
  'left_oid': (string);
  'right_oid': (string);
}
