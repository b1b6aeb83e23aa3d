// Original file: githost/storage/v1/storage.proto


export interface RemoveRepositoryRequest {
  'repository_id'?: (string);
}

export interface RemoveRepositoryRequest__Output {
  'repository_id': (string);
}
