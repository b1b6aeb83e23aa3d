// Original file: githost/storage/v1/storage.proto


export interface ResolveRevisionResponse {
  'oid'?: (string);
}

export interface ResolveRevisionResponse__Output {
  'oid': (string);
}
