// Original file: githost/storage/v1/storage.proto


export interface DiffFile {
  'path'?: (string);
  'old_path'?: (string);
  'status'?: (string);
  'old_mode'?: (string);
  'new_mode'?: (string);
  'old_sha'?: (string);
  'new_sha'?: (string);
  'additions'?: (number);
  'deletions'?: (number);
  'binary'?: (boolean);
  'patch'?: (string);
  'patch_omitted'?: (boolean);
}

export interface DiffFile__Output {
  'path': (string);
  'old_path': (string);
  'status': (string);
  'old_mode': (string);
  'new_mode': (string);
  'old_sha': (string);
  'new_sha': (string);
  'additions': (number);
  'deletions': (number);
  'binary': (boolean);
  'patch': (string);
  'patch_omitted': (boolean);
}
