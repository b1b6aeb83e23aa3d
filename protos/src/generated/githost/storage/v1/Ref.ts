// Original file: githost/storage/v1/storage.proto


export interface Ref {
  'name'?: (string);
  'target'?: (string);
  'peeled'?: (string);
}

export interface Ref__Output {
  'name': (string);
  'target': (string);
  'peeled': (string);
}
