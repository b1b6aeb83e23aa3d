// Original file: githost/storage/v1/storage.proto


export interface ReadCommitRequest {
  'repository_id'?: (string);
  'revision'?: (string);
}

export interface ReadCommitRequest__Output {
  'repository_id': (string);
  'revision': (string);
}
