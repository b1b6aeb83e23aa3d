// Original file: githost/storage/v1/storage.proto


export interface ReadTreeResponse {
  'tree_oid'?: (string);
  'entries'?: (Buffer | Uint8Array | string);
  'count'?: (number);
}

export interface ReadTreeResponse__Output {
  'tree_oid': (string);
  'entries': (Buffer);
  'count': (number);
}
