// Original file: githost/storage/v1/storage.proto


export interface AnnounceChangeRequest {
  'repository_id'?: (string);
  'every_repository'?: (boolean);
}

export interface AnnounceChangeRequest__Output {
  'repository_id': (string);
  'every_repository': (boolean);
}
