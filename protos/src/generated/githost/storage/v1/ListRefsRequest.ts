// Original file: githost/storage/v1/storage.proto


export interface ListRefsRequest {
  'repository_id'?: (string);
  'prefixes'?: (string)[];
}

export interface ListRefsRequest__Output {
  'repository_id': (string);
  'prefixes': (string)[];
}
