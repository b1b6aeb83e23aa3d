// Original file: githost/storage/v1/storage.proto


export interface ResolveRevisionRequest {
  'repository_id'?: (string);
  'revision'?: (string);
}

export interface ResolveRevisionRequest__Output {
  'repository_id': (string);
  'revision': (string);
}
