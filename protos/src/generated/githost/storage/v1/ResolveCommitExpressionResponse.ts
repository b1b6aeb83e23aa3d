// Original file: githost/storage/v1/storage.proto


export interface ResolveCommitExpressionResponse {
  'oid'?: (string);
}

export interface ResolveCommitExpressionResponse__Output {
  'oid': (string);
}
