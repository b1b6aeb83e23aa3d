// Original file: githost/storage/v1/storage.proto


export interface CreateRepositoryRequest {
  'repository_id'?: (string);
  'default_branch'?: (string);
}

export interface CreateRepositoryRequest__Output {
  'repository_id': (string);
  'default_branch': (string);
}
