// Original file: githost/storage/v1/storage.proto


export interface ResolveCommitExpressionRequest {
  'repository_id'?: (string);
  'expression'?: (string);
}

export interface ResolveCommitExpressionRequest__Output {
  'repository_id': (string);
  'expression': (string);
}
