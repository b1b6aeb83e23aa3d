// Original file: githost/storage/v1/storage.proto


export interface SetDefaultBranchRequest {
  'repository_id'?: (string);
  'branch'?: (string);
}

export interface SetDefaultBranchRequest__Output {
  'repository_id': (string);
  'branch': (string);
}
