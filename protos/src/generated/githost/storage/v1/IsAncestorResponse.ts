// Original file: githost/storage/v1/storage.proto


export interface IsAncestorResponse {
  'is_ancestor'?: (boolean);
}

export interface IsAncestorResponse__Output {
  'is_ancestor': (boolean);
}
