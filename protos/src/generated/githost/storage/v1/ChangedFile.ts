// Original file: githost/storage/v1/storage.proto


export interface ChangedFile {
  'path'?: (string);
  'status'?: (string);
}

export interface ChangedFile__Output {
  'path': (string);
  'status': (string);
}
