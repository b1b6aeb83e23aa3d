// Original file: githost/storage/v1/storage.proto


export interface Commit {
  'oid'?: (string);
  'raw'?: (Buffer | Uint8Array | string);
}

export interface Commit__Output {
  'oid': (string);
  'raw': (Buffer);
}
