// Original file: githost/storage/v1/storage.proto


export interface IsAncestorRequest {
  'repository_id'?: (string);
  'ancestor_oid'?: (string);
  'descendant_oid'?: (string);
}

export interface IsAncestorRequest__Output {
  'repository_id': (string);
  'ancestor_oid': (string);
  'descendant_oid': (string);
}
