// Original file: githost/storage/v1/storage.proto


export interface ReadTreeStreamResponse {
  'tree_oid'?: (string);
  'entries'?: (Buffer | Uint8Array | string);
  'count'?: (number);
}

export interface ReadTreeStreamResponse__Output {
  'tree_oid': (string);
  'entries': (Buffer);
  'count': (number);
}
