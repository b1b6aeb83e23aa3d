// Original file: githost/storage/v1/storage.proto


export interface ReadLfsObjectRequest {
  'repository_id'?: (string);
  'oid'?: (string);
}

export interface ReadLfsObjectRequest__Output {
  'repository_id': (string);
  'oid': (string);
}
