// Original file: githost/storage/v1/storage.proto


export interface ListCommitChangesRequest {
  'repository_id'?: (string);
  'commit_oids'?: (string)[];
}

export interface ListCommitChangesRequest__Output {
  'repository_id': (string);
  'commit_oids': (string)[];
}
