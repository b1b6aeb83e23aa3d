// Original file: githost/storage/v1/storage.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AnnounceChangeRequest as _githost_storage_v1_AnnounceChangeRequest, AnnounceChangeRequest__Output as _githost_storage_v1_AnnounceChangeRequest__Output } from '../../../githost/storage/v1/AnnounceChangeRequest.js';
import type { AnnounceChangeResponse as _githost_storage_v1_AnnounceChangeResponse, AnnounceChangeResponse__Output as _githost_storage_v1_AnnounceChangeResponse__Output } from '../../../githost/storage/v1/AnnounceChangeResponse.js';
import type { CheckMergeRequest as _githost_storage_v1_CheckMergeRequest, CheckMergeRequest__Output as _githost_storage_v1_CheckMergeRequest__Output } from '../../../githost/storage/v1/CheckMergeRequest.js';
import type { CheckMergeResponse as _githost_storage_v1_CheckMergeResponse, CheckMergeResponse__Output as _githost_storage_v1_CheckMergeResponse__Output } from '../../../githost/storage/v1/CheckMergeResponse.js';
import type { CompareRequest as _githost_storage_v1_CompareRequest, CompareRequest__Output as _githost_storage_v1_CompareRequest__Output } from '../../../githost/storage/v1/CompareRequest.js';
import type { CompareResponse as _githost_storage_v1_CompareResponse, CompareResponse__Output as _githost_storage_v1_CompareResponse__Output } from '../../../githost/storage/v1/CompareResponse.js';
import type { CountCommitsRequest as _githost_storage_v1_CountCommitsRequest, CountCommitsRequest__Output as _githost_storage_v1_CountCommitsRequest__Output } from '../../../githost/storage/v1/CountCommitsRequest.js';
import type { CountCommitsResponse as _githost_storage_v1_CountCommitsResponse, CountCommitsResponse__Output as _githost_storage_v1_CountCommitsResponse__Output } from '../../../githost/storage/v1/CountCommitsResponse.js';
import type { CreateRepositoryRequest as _githost_storage_v1_CreateRepositoryRequest, CreateRepositoryRequest__Output as _githost_storage_v1_CreateRepositoryRequest__Output } from '../../../githost/storage/v1/CreateRepositoryRequest.js';
import type { CreateRepositoryResponse as _githost_storage_v1_CreateRepositoryResponse, CreateRepositoryResponse__Output as _githost_storage_v1_CreateRepositoryResponse__Output } from '../../../githost/storage/v1/CreateRepositoryResponse.js';
import type { DiffRequest as _githost_storage_v1_DiffRequest, DiffRequest__Output as _githost_storage_v1_DiffRequest__Output } from '../../../githost/storage/v1/DiffRequest.js';
import type { DiffResponse as _githost_storage_v1_DiffResponse, DiffResponse__Output as _githost_storage_v1_DiffResponse__Output } from '../../../githost/storage/v1/DiffResponse.js';
import type { IsAncestorRequest as _githost_storage_v1_IsAncestorRequest, IsAncestorRequest__Output as _githost_storage_v1_IsAncestorRequest__Output } from '../../../githost/storage/v1/IsAncestorRequest.js';
import type { IsAncestorResponse as _githost_storage_v1_IsAncestorResponse, IsAncestorResponse__Output as _githost_storage_v1_IsAncestorResponse__Output } from '../../../githost/storage/v1/IsAncestorResponse.js';
import type { ListCommitChangesRequest as _githost_storage_v1_ListCommitChangesRequest, ListCommitChangesRequest__Output as _githost_storage_v1_ListCommitChangesRequest__Output } from '../../../githost/storage/v1/ListCommitChangesRequest.js';
import type { ListCommitChangesResponse as _githost_storage_v1_ListCommitChangesResponse, ListCommitChangesResponse__Output as _githost_storage_v1_ListCommitChangesResponse__Output } from '../../../githost/storage/v1/ListCommitChangesResponse.js';
import type { ListCommitsRequest as _githost_storage_v1_ListCommitsRequest, ListCommitsRequest__Output as _githost_storage_v1_ListCommitsRequest__Output } from '../../../githost/storage/v1/ListCommitsRequest.js';
import type { ListCommitsResponse as _githost_storage_v1_ListCommitsResponse, ListCommitsResponse__Output as _githost_storage_v1_ListCommitsResponse__Output } from '../../../githost/storage/v1/ListCommitsResponse.js';
import type { ListRefsRequest as _githost_storage_v1_ListRefsRequest, ListRefsRequest__Output as _githost_storage_v1_ListRefsRequest__Output } from '../../../githost/storage/v1/ListRefsRequest.js';
import type { ListRefsResponse as _githost_storage_v1_ListRefsResponse, ListRefsResponse__Output as _githost_storage_v1_ListRefsResponse__Output } from '../../../githost/storage/v1/ListRefsResponse.js';
import type { MergeBaseRequest as _githost_storage_v1_MergeBaseRequest, MergeBaseRequest__Output as _githost_storage_v1_MergeBaseRequest__Output } from '../../../githost/storage/v1/MergeBaseRequest.js';
import type { MergeBaseResponse as _githost_storage_v1_MergeBaseResponse, MergeBaseResponse__Output as _githost_storage_v1_MergeBaseResponse__Output } from '../../../githost/storage/v1/MergeBaseResponse.js';
import type { ReadBlobRequest as _githost_storage_v1_ReadBlobRequest, ReadBlobRequest__Output as _githost_storage_v1_ReadBlobRequest__Output } from '../../../githost/storage/v1/ReadBlobRequest.js';
import type { ReadBlobResponse as _githost_storage_v1_ReadBlobResponse, ReadBlobResponse__Output as _githost_storage_v1_ReadBlobResponse__Output } from '../../../githost/storage/v1/ReadBlobResponse.js';
import type { ReadCommitRequest as _githost_storage_v1_ReadCommitRequest, ReadCommitRequest__Output as _githost_storage_v1_ReadCommitRequest__Output } from '../../../githost/storage/v1/ReadCommitRequest.js';
import type { ReadCommitResponse as _githost_storage_v1_ReadCommitResponse, ReadCommitResponse__Output as _githost_storage_v1_ReadCommitResponse__Output } from '../../../githost/storage/v1/ReadCommitResponse.js';
import type { ReadLfsObjectRequest as _githost_storage_v1_ReadLfsObjectRequest, ReadLfsObjectRequest__Output as _githost_storage_v1_ReadLfsObjectRequest__Output } from '../../../githost/storage/v1/ReadLfsObjectRequest.js';
import type { ReadLfsObjectResponse as _githost_storage_v1_ReadLfsObjectResponse, ReadLfsObjectResponse__Output as _githost_storage_v1_ReadLfsObjectResponse__Output } from '../../../githost/storage/v1/ReadLfsObjectResponse.js';
import type { ReadTreeRequest as _githost_storage_v1_ReadTreeRequest, ReadTreeRequest__Output as _githost_storage_v1_ReadTreeRequest__Output } from '../../../githost/storage/v1/ReadTreeRequest.js';
import type { ReadTreeResponse as _githost_storage_v1_ReadTreeResponse, ReadTreeResponse__Output as _githost_storage_v1_ReadTreeResponse__Output } from '../../../githost/storage/v1/ReadTreeResponse.js';
import type { ReadTreeStreamRequest as _githost_storage_v1_ReadTreeStreamRequest, ReadTreeStreamRequest__Output as _githost_storage_v1_ReadTreeStreamRequest__Output } from '../../../githost/storage/v1/ReadTreeStreamRequest.js';
import type { ReadTreeStreamResponse as _githost_storage_v1_ReadTreeStreamResponse, ReadTreeStreamResponse__Output as _githost_storage_v1_ReadTreeStreamResponse__Output } from '../../../githost/storage/v1/ReadTreeStreamResponse.js';
import type { RefsChanged as _githost_storage_v1_RefsChanged, RefsChanged__Output as _githost_storage_v1_RefsChanged__Output } from '../../../githost/storage/v1/RefsChanged.js';
import type { RemoveRepositoryRequest as _githost_storage_v1_RemoveRepositoryRequest, RemoveRepositoryRequest__Output as _githost_storage_v1_RemoveRepositoryRequest__Output } from '../../../githost/storage/v1/RemoveRepositoryRequest.js';
import type { RemoveRepositoryResponse as _githost_storage_v1_RemoveRepositoryResponse, RemoveRepositoryResponse__Output as _githost_storage_v1_RemoveRepositoryResponse__Output } from '../../../githost/storage/v1/RemoveRepositoryResponse.js';
import type { ResolveCommitExpressionRequest as _githost_storage_v1_ResolveCommitExpressionRequest, ResolveCommitExpressionRequest__Output as _githost_storage_v1_ResolveCommitExpressionRequest__Output } from '../../../githost/storage/v1/ResolveCommitExpressionRequest.js';
import type { ResolveCommitExpressionResponse as _githost_storage_v1_ResolveCommitExpressionResponse, ResolveCommitExpressionResponse__Output as _githost_storage_v1_ResolveCommitExpressionResponse__Output } from '../../../githost/storage/v1/ResolveCommitExpressionResponse.js';
import type { ResolveMergeTipsRequest as _githost_storage_v1_ResolveMergeTipsRequest, ResolveMergeTipsRequest__Output as _githost_storage_v1_ResolveMergeTipsRequest__Output } from '../../../githost/storage/v1/ResolveMergeTipsRequest.js';
import type { ResolveMergeTipsResponse as _githost_storage_v1_ResolveMergeTipsResponse, ResolveMergeTipsResponse__Output as _githost_storage_v1_ResolveMergeTipsResponse__Output } from '../../../githost/storage/v1/ResolveMergeTipsResponse.js';
import type { ResolveRevisionRequest as _githost_storage_v1_ResolveRevisionRequest, ResolveRevisionRequest__Output as _githost_storage_v1_ResolveRevisionRequest__Output } from '../../../githost/storage/v1/ResolveRevisionRequest.js';
import type { ResolveRevisionResponse as _githost_storage_v1_ResolveRevisionResponse, ResolveRevisionResponse__Output as _githost_storage_v1_ResolveRevisionResponse__Output } from '../../../githost/storage/v1/ResolveRevisionResponse.js';
import type { SetDefaultBranchRequest as _githost_storage_v1_SetDefaultBranchRequest, SetDefaultBranchRequest__Output as _githost_storage_v1_SetDefaultBranchRequest__Output } from '../../../githost/storage/v1/SetDefaultBranchRequest.js';
import type { SetDefaultBranchResponse as _githost_storage_v1_SetDefaultBranchResponse, SetDefaultBranchResponse__Output as _githost_storage_v1_SetDefaultBranchResponse__Output } from '../../../githost/storage/v1/SetDefaultBranchResponse.js';
import type { UpdateRefRequest as _githost_storage_v1_UpdateRefRequest, UpdateRefRequest__Output as _githost_storage_v1_UpdateRefRequest__Output } from '../../../githost/storage/v1/UpdateRefRequest.js';
import type { UpdateRefResponse as _githost_storage_v1_UpdateRefResponse, UpdateRefResponse__Output as _githost_storage_v1_UpdateRefResponse__Output } from '../../../githost/storage/v1/UpdateRefResponse.js';
import type { WatchRefsRequest as _githost_storage_v1_WatchRefsRequest, WatchRefsRequest__Output as _githost_storage_v1_WatchRefsRequest__Output } from '../../../githost/storage/v1/WatchRefsRequest.js';
import type { WriteMergeRequest as _githost_storage_v1_WriteMergeRequest, WriteMergeRequest__Output as _githost_storage_v1_WriteMergeRequest__Output } from '../../../githost/storage/v1/WriteMergeRequest.js';
import type { WriteMergeResponse as _githost_storage_v1_WriteMergeResponse, WriteMergeResponse__Output as _githost_storage_v1_WriteMergeResponse__Output } from '../../../githost/storage/v1/WriteMergeResponse.js';

export interface StorageServiceClient extends grpc.Client {
  AnnounceChange(argument: _githost_storage_v1_AnnounceChangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  AnnounceChange(argument: _githost_storage_v1_AnnounceChangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  AnnounceChange(argument: _githost_storage_v1_AnnounceChangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  AnnounceChange(argument: _githost_storage_v1_AnnounceChangeRequest, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  announceChange(argument: _githost_storage_v1_AnnounceChangeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  announceChange(argument: _githost_storage_v1_AnnounceChangeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  announceChange(argument: _githost_storage_v1_AnnounceChangeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  announceChange(argument: _githost_storage_v1_AnnounceChangeRequest, callback: grpc.requestCallback<_githost_storage_v1_AnnounceChangeResponse__Output>): grpc.ClientUnaryCall;
  
  CheckMerge(argument: _githost_storage_v1_CheckMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  CheckMerge(argument: _githost_storage_v1_CheckMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  CheckMerge(argument: _githost_storage_v1_CheckMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  CheckMerge(argument: _githost_storage_v1_CheckMergeRequest, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  checkMerge(argument: _githost_storage_v1_CheckMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  checkMerge(argument: _githost_storage_v1_CheckMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  checkMerge(argument: _githost_storage_v1_CheckMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  checkMerge(argument: _githost_storage_v1_CheckMergeRequest, callback: grpc.requestCallback<_githost_storage_v1_CheckMergeResponse__Output>): grpc.ClientUnaryCall;
  
  Compare(argument: _githost_storage_v1_CompareRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  Compare(argument: _githost_storage_v1_CompareRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  Compare(argument: _githost_storage_v1_CompareRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  Compare(argument: _githost_storage_v1_CompareRequest, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  compare(argument: _githost_storage_v1_CompareRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  compare(argument: _githost_storage_v1_CompareRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  compare(argument: _githost_storage_v1_CompareRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  compare(argument: _githost_storage_v1_CompareRequest, callback: grpc.requestCallback<_githost_storage_v1_CompareResponse__Output>): grpc.ClientUnaryCall;
  
  CountCommits(argument: _githost_storage_v1_CountCommitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  CountCommits(argument: _githost_storage_v1_CountCommitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  CountCommits(argument: _githost_storage_v1_CountCommitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  CountCommits(argument: _githost_storage_v1_CountCommitsRequest, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  countCommits(argument: _githost_storage_v1_CountCommitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  countCommits(argument: _githost_storage_v1_CountCommitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  countCommits(argument: _githost_storage_v1_CountCommitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  countCommits(argument: _githost_storage_v1_CountCommitsRequest, callback: grpc.requestCallback<_githost_storage_v1_CountCommitsResponse__Output>): grpc.ClientUnaryCall;
  
  CreateRepository(argument: _githost_storage_v1_CreateRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  CreateRepository(argument: _githost_storage_v1_CreateRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  CreateRepository(argument: _githost_storage_v1_CreateRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  CreateRepository(argument: _githost_storage_v1_CreateRepositoryRequest, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  createRepository(argument: _githost_storage_v1_CreateRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  createRepository(argument: _githost_storage_v1_CreateRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  createRepository(argument: _githost_storage_v1_CreateRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  createRepository(argument: _githost_storage_v1_CreateRepositoryRequest, callback: grpc.requestCallback<_githost_storage_v1_CreateRepositoryResponse__Output>): grpc.ClientUnaryCall;
  
  Diff(argument: _githost_storage_v1_DiffRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_DiffResponse__Output>;
  Diff(argument: _githost_storage_v1_DiffRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_DiffResponse__Output>;
  diff(argument: _githost_storage_v1_DiffRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_DiffResponse__Output>;
  diff(argument: _githost_storage_v1_DiffRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_DiffResponse__Output>;
  
  IsAncestor(argument: _githost_storage_v1_IsAncestorRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  IsAncestor(argument: _githost_storage_v1_IsAncestorRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  IsAncestor(argument: _githost_storage_v1_IsAncestorRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  IsAncestor(argument: _githost_storage_v1_IsAncestorRequest, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  isAncestor(argument: _githost_storage_v1_IsAncestorRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  isAncestor(argument: _githost_storage_v1_IsAncestorRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  isAncestor(argument: _githost_storage_v1_IsAncestorRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  isAncestor(argument: _githost_storage_v1_IsAncestorRequest, callback: grpc.requestCallback<_githost_storage_v1_IsAncestorResponse__Output>): grpc.ClientUnaryCall;
  
  ListCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  ListCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  ListCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  ListCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  listCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  listCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  listCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  listCommitChanges(argument: _githost_storage_v1_ListCommitChangesRequest, callback: grpc.requestCallback<_githost_storage_v1_ListCommitChangesResponse__Output>): grpc.ClientUnaryCall;
  
  ListCommits(argument: _githost_storage_v1_ListCommitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  ListCommits(argument: _githost_storage_v1_ListCommitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  ListCommits(argument: _githost_storage_v1_ListCommitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  ListCommits(argument: _githost_storage_v1_ListCommitsRequest, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  listCommits(argument: _githost_storage_v1_ListCommitsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  listCommits(argument: _githost_storage_v1_ListCommitsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  listCommits(argument: _githost_storage_v1_ListCommitsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  listCommits(argument: _githost_storage_v1_ListCommitsRequest, callback: grpc.requestCallback<_githost_storage_v1_ListCommitsResponse__Output>): grpc.ClientUnaryCall;
  
  ListRefs(argument: _githost_storage_v1_ListRefsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  ListRefs(argument: _githost_storage_v1_ListRefsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  ListRefs(argument: _githost_storage_v1_ListRefsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  ListRefs(argument: _githost_storage_v1_ListRefsRequest, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  listRefs(argument: _githost_storage_v1_ListRefsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  listRefs(argument: _githost_storage_v1_ListRefsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  listRefs(argument: _githost_storage_v1_ListRefsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  listRefs(argument: _githost_storage_v1_ListRefsRequest, callback: grpc.requestCallback<_githost_storage_v1_ListRefsResponse__Output>): grpc.ClientUnaryCall;
  
  MergeBase(argument: _githost_storage_v1_MergeBaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  MergeBase(argument: _githost_storage_v1_MergeBaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  MergeBase(argument: _githost_storage_v1_MergeBaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  MergeBase(argument: _githost_storage_v1_MergeBaseRequest, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  mergeBase(argument: _githost_storage_v1_MergeBaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  mergeBase(argument: _githost_storage_v1_MergeBaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  mergeBase(argument: _githost_storage_v1_MergeBaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  mergeBase(argument: _githost_storage_v1_MergeBaseRequest, callback: grpc.requestCallback<_githost_storage_v1_MergeBaseResponse__Output>): grpc.ClientUnaryCall;
  
  ReadBlob(argument: _githost_storage_v1_ReadBlobRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadBlobResponse__Output>;
  ReadBlob(argument: _githost_storage_v1_ReadBlobRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadBlobResponse__Output>;
  readBlob(argument: _githost_storage_v1_ReadBlobRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadBlobResponse__Output>;
  readBlob(argument: _githost_storage_v1_ReadBlobRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadBlobResponse__Output>;
  
  ReadCommit(argument: _githost_storage_v1_ReadCommitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  ReadCommit(argument: _githost_storage_v1_ReadCommitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  ReadCommit(argument: _githost_storage_v1_ReadCommitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  ReadCommit(argument: _githost_storage_v1_ReadCommitRequest, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  readCommit(argument: _githost_storage_v1_ReadCommitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  readCommit(argument: _githost_storage_v1_ReadCommitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  readCommit(argument: _githost_storage_v1_ReadCommitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  readCommit(argument: _githost_storage_v1_ReadCommitRequest, callback: grpc.requestCallback<_githost_storage_v1_ReadCommitResponse__Output>): grpc.ClientUnaryCall;
  
  ReadLfsObject(argument: _githost_storage_v1_ReadLfsObjectRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadLfsObjectResponse__Output>;
  ReadLfsObject(argument: _githost_storage_v1_ReadLfsObjectRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadLfsObjectResponse__Output>;
  readLfsObject(argument: _githost_storage_v1_ReadLfsObjectRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadLfsObjectResponse__Output>;
  readLfsObject(argument: _githost_storage_v1_ReadLfsObjectRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadLfsObjectResponse__Output>;
  
  ReadTree(argument: _githost_storage_v1_ReadTreeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  ReadTree(argument: _githost_storage_v1_ReadTreeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  ReadTree(argument: _githost_storage_v1_ReadTreeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  ReadTree(argument: _githost_storage_v1_ReadTreeRequest, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  readTree(argument: _githost_storage_v1_ReadTreeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  readTree(argument: _githost_storage_v1_ReadTreeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  readTree(argument: _githost_storage_v1_ReadTreeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  readTree(argument: _githost_storage_v1_ReadTreeRequest, callback: grpc.requestCallback<_githost_storage_v1_ReadTreeResponse__Output>): grpc.ClientUnaryCall;
  
  ReadTreeStream(argument: _githost_storage_v1_ReadTreeStreamRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadTreeStreamResponse__Output>;
  ReadTreeStream(argument: _githost_storage_v1_ReadTreeStreamRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadTreeStreamResponse__Output>;
  readTreeStream(argument: _githost_storage_v1_ReadTreeStreamRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadTreeStreamResponse__Output>;
  readTreeStream(argument: _githost_storage_v1_ReadTreeStreamRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_githost_storage_v1_ReadTreeStreamResponse__Output>;
  
  RemoveRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  RemoveRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  RemoveRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  RemoveRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  removeRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  removeRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  removeRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  removeRepository(argument: _githost_storage_v1_RemoveRepositoryRequest, callback: grpc.requestCallback<_githost_storage_v1_RemoveRepositoryResponse__Output>): grpc.ClientUnaryCall;
  
  ResolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  ResolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  ResolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  ResolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  resolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  resolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  resolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  resolveCommitExpression(argument: _githost_storage_v1_ResolveCommitExpressionRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveCommitExpressionResponse__Output>): grpc.ClientUnaryCall;
  
  ResolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  ResolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  ResolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  ResolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  resolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  resolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  resolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  resolveMergeTips(argument: _githost_storage_v1_ResolveMergeTipsRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveMergeTipsResponse__Output>): grpc.ClientUnaryCall;
  
  ResolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  ResolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  ResolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  ResolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  resolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  resolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  resolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  resolveRevision(argument: _githost_storage_v1_ResolveRevisionRequest, callback: grpc.requestCallback<_githost_storage_v1_ResolveRevisionResponse__Output>): grpc.ClientUnaryCall;
  
  SetDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  SetDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  SetDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  SetDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  setDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  setDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  setDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  setDefaultBranch(argument: _githost_storage_v1_SetDefaultBranchRequest, callback: grpc.requestCallback<_githost_storage_v1_SetDefaultBranchResponse__Output>): grpc.ClientUnaryCall;
  
  UpdateRef(argument: _githost_storage_v1_UpdateRefRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  UpdateRef(argument: _githost_storage_v1_UpdateRefRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  UpdateRef(argument: _githost_storage_v1_UpdateRefRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  UpdateRef(argument: _githost_storage_v1_UpdateRefRequest, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  updateRef(argument: _githost_storage_v1_UpdateRefRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  updateRef(argument: _githost_storage_v1_UpdateRefRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  updateRef(argument: _githost_storage_v1_UpdateRefRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  updateRef(argument: _githost_storage_v1_UpdateRefRequest, callback: grpc.requestCallback<_githost_storage_v1_UpdateRefResponse__Output>): grpc.ClientUnaryCall;
  
  WatchRefs(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_RefsChanged__Output>;
  WatchRefs(options?: grpc.CallOptions): grpc.ClientDuplexStream<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_RefsChanged__Output>;
  watchRefs(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_RefsChanged__Output>;
  watchRefs(options?: grpc.CallOptions): grpc.ClientDuplexStream<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_RefsChanged__Output>;
  
  WriteMerge(argument: _githost_storage_v1_WriteMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  WriteMerge(argument: _githost_storage_v1_WriteMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  WriteMerge(argument: _githost_storage_v1_WriteMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  WriteMerge(argument: _githost_storage_v1_WriteMergeRequest, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  writeMerge(argument: _githost_storage_v1_WriteMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  writeMerge(argument: _githost_storage_v1_WriteMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  writeMerge(argument: _githost_storage_v1_WriteMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  writeMerge(argument: _githost_storage_v1_WriteMergeRequest, callback: grpc.requestCallback<_githost_storage_v1_WriteMergeResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface StorageServiceHandlers extends grpc.UntypedServiceImplementation {
  AnnounceChange: grpc.handleUnaryCall<_githost_storage_v1_AnnounceChangeRequest__Output, _githost_storage_v1_AnnounceChangeResponse>;
  
  CheckMerge: grpc.handleUnaryCall<_githost_storage_v1_CheckMergeRequest__Output, _githost_storage_v1_CheckMergeResponse>;
  
  Compare: grpc.handleUnaryCall<_githost_storage_v1_CompareRequest__Output, _githost_storage_v1_CompareResponse>;
  
  CountCommits: grpc.handleUnaryCall<_githost_storage_v1_CountCommitsRequest__Output, _githost_storage_v1_CountCommitsResponse>;
  
  CreateRepository: grpc.handleUnaryCall<_githost_storage_v1_CreateRepositoryRequest__Output, _githost_storage_v1_CreateRepositoryResponse>;
  
  Diff: grpc.handleServerStreamingCall<_githost_storage_v1_DiffRequest__Output, _githost_storage_v1_DiffResponse>;
  
  IsAncestor: grpc.handleUnaryCall<_githost_storage_v1_IsAncestorRequest__Output, _githost_storage_v1_IsAncestorResponse>;
  
  ListCommitChanges: grpc.handleUnaryCall<_githost_storage_v1_ListCommitChangesRequest__Output, _githost_storage_v1_ListCommitChangesResponse>;
  
  ListCommits: grpc.handleUnaryCall<_githost_storage_v1_ListCommitsRequest__Output, _githost_storage_v1_ListCommitsResponse>;
  
  ListRefs: grpc.handleUnaryCall<_githost_storage_v1_ListRefsRequest__Output, _githost_storage_v1_ListRefsResponse>;
  
  MergeBase: grpc.handleUnaryCall<_githost_storage_v1_MergeBaseRequest__Output, _githost_storage_v1_MergeBaseResponse>;
  
  ReadBlob: grpc.handleServerStreamingCall<_githost_storage_v1_ReadBlobRequest__Output, _githost_storage_v1_ReadBlobResponse>;
  
  ReadCommit: grpc.handleUnaryCall<_githost_storage_v1_ReadCommitRequest__Output, _githost_storage_v1_ReadCommitResponse>;
  
  ReadLfsObject: grpc.handleServerStreamingCall<_githost_storage_v1_ReadLfsObjectRequest__Output, _githost_storage_v1_ReadLfsObjectResponse>;
  
  ReadTree: grpc.handleUnaryCall<_githost_storage_v1_ReadTreeRequest__Output, _githost_storage_v1_ReadTreeResponse>;
  
  ReadTreeStream: grpc.handleServerStreamingCall<_githost_storage_v1_ReadTreeStreamRequest__Output, _githost_storage_v1_ReadTreeStreamResponse>;
  
  RemoveRepository: grpc.handleUnaryCall<_githost_storage_v1_RemoveRepositoryRequest__Output, _githost_storage_v1_RemoveRepositoryResponse>;
  
  ResolveCommitExpression: grpc.handleUnaryCall<_githost_storage_v1_ResolveCommitExpressionRequest__Output, _githost_storage_v1_ResolveCommitExpressionResponse>;
  
  ResolveMergeTips: grpc.handleUnaryCall<_githost_storage_v1_ResolveMergeTipsRequest__Output, _githost_storage_v1_ResolveMergeTipsResponse>;
  
  ResolveRevision: grpc.handleUnaryCall<_githost_storage_v1_ResolveRevisionRequest__Output, _githost_storage_v1_ResolveRevisionResponse>;
  
  SetDefaultBranch: grpc.handleUnaryCall<_githost_storage_v1_SetDefaultBranchRequest__Output, _githost_storage_v1_SetDefaultBranchResponse>;
  
  UpdateRef: grpc.handleUnaryCall<_githost_storage_v1_UpdateRefRequest__Output, _githost_storage_v1_UpdateRefResponse>;
  
  WatchRefs: grpc.handleBidiStreamingCall<_githost_storage_v1_WatchRefsRequest__Output, _githost_storage_v1_RefsChanged>;
  
  WriteMerge: grpc.handleUnaryCall<_githost_storage_v1_WriteMergeRequest__Output, _githost_storage_v1_WriteMergeResponse>;
  
}

export interface StorageServiceDefinition extends grpc.ServiceDefinition {
  AnnounceChange: MethodDefinition<_githost_storage_v1_AnnounceChangeRequest, _githost_storage_v1_AnnounceChangeResponse, _githost_storage_v1_AnnounceChangeRequest__Output, _githost_storage_v1_AnnounceChangeResponse__Output>
  CheckMerge: MethodDefinition<_githost_storage_v1_CheckMergeRequest, _githost_storage_v1_CheckMergeResponse, _githost_storage_v1_CheckMergeRequest__Output, _githost_storage_v1_CheckMergeResponse__Output>
  Compare: MethodDefinition<_githost_storage_v1_CompareRequest, _githost_storage_v1_CompareResponse, _githost_storage_v1_CompareRequest__Output, _githost_storage_v1_CompareResponse__Output>
  CountCommits: MethodDefinition<_githost_storage_v1_CountCommitsRequest, _githost_storage_v1_CountCommitsResponse, _githost_storage_v1_CountCommitsRequest__Output, _githost_storage_v1_CountCommitsResponse__Output>
  CreateRepository: MethodDefinition<_githost_storage_v1_CreateRepositoryRequest, _githost_storage_v1_CreateRepositoryResponse, _githost_storage_v1_CreateRepositoryRequest__Output, _githost_storage_v1_CreateRepositoryResponse__Output>
  Diff: MethodDefinition<_githost_storage_v1_DiffRequest, _githost_storage_v1_DiffResponse, _githost_storage_v1_DiffRequest__Output, _githost_storage_v1_DiffResponse__Output>
  IsAncestor: MethodDefinition<_githost_storage_v1_IsAncestorRequest, _githost_storage_v1_IsAncestorResponse, _githost_storage_v1_IsAncestorRequest__Output, _githost_storage_v1_IsAncestorResponse__Output>
  ListCommitChanges: MethodDefinition<_githost_storage_v1_ListCommitChangesRequest, _githost_storage_v1_ListCommitChangesResponse, _githost_storage_v1_ListCommitChangesRequest__Output, _githost_storage_v1_ListCommitChangesResponse__Output>
  ListCommits: MethodDefinition<_githost_storage_v1_ListCommitsRequest, _githost_storage_v1_ListCommitsResponse, _githost_storage_v1_ListCommitsRequest__Output, _githost_storage_v1_ListCommitsResponse__Output>
  ListRefs: MethodDefinition<_githost_storage_v1_ListRefsRequest, _githost_storage_v1_ListRefsResponse, _githost_storage_v1_ListRefsRequest__Output, _githost_storage_v1_ListRefsResponse__Output>
  MergeBase: MethodDefinition<_githost_storage_v1_MergeBaseRequest, _githost_storage_v1_MergeBaseResponse, _githost_storage_v1_MergeBaseRequest__Output, _githost_storage_v1_MergeBaseResponse__Output>
  ReadBlob: MethodDefinition<_githost_storage_v1_ReadBlobRequest, _githost_storage_v1_ReadBlobResponse, _githost_storage_v1_ReadBlobRequest__Output, _githost_storage_v1_ReadBlobResponse__Output>
  ReadCommit: MethodDefinition<_githost_storage_v1_ReadCommitRequest, _githost_storage_v1_ReadCommitResponse, _githost_storage_v1_ReadCommitRequest__Output, _githost_storage_v1_ReadCommitResponse__Output>
  ReadLfsObject: MethodDefinition<_githost_storage_v1_ReadLfsObjectRequest, _githost_storage_v1_ReadLfsObjectResponse, _githost_storage_v1_ReadLfsObjectRequest__Output, _githost_storage_v1_ReadLfsObjectResponse__Output>
  ReadTree: MethodDefinition<_githost_storage_v1_ReadTreeRequest, _githost_storage_v1_ReadTreeResponse, _githost_storage_v1_ReadTreeRequest__Output, _githost_storage_v1_ReadTreeResponse__Output>
  ReadTreeStream: MethodDefinition<_githost_storage_v1_ReadTreeStreamRequest, _githost_storage_v1_ReadTreeStreamResponse, _githost_storage_v1_ReadTreeStreamRequest__Output, _githost_storage_v1_ReadTreeStreamResponse__Output>
  RemoveRepository: MethodDefinition<_githost_storage_v1_RemoveRepositoryRequest, _githost_storage_v1_RemoveRepositoryResponse, _githost_storage_v1_RemoveRepositoryRequest__Output, _githost_storage_v1_RemoveRepositoryResponse__Output>
  ResolveCommitExpression: MethodDefinition<_githost_storage_v1_ResolveCommitExpressionRequest, _githost_storage_v1_ResolveCommitExpressionResponse, _githost_storage_v1_ResolveCommitExpressionRequest__Output, _githost_storage_v1_ResolveCommitExpressionResponse__Output>
  ResolveMergeTips: MethodDefinition<_githost_storage_v1_ResolveMergeTipsRequest, _githost_storage_v1_ResolveMergeTipsResponse, _githost_storage_v1_ResolveMergeTipsRequest__Output, _githost_storage_v1_ResolveMergeTipsResponse__Output>
  ResolveRevision: MethodDefinition<_githost_storage_v1_ResolveRevisionRequest, _githost_storage_v1_ResolveRevisionResponse, _githost_storage_v1_ResolveRevisionRequest__Output, _githost_storage_v1_ResolveRevisionResponse__Output>
  SetDefaultBranch: MethodDefinition<_githost_storage_v1_SetDefaultBranchRequest, _githost_storage_v1_SetDefaultBranchResponse, _githost_storage_v1_SetDefaultBranchRequest__Output, _githost_storage_v1_SetDefaultBranchResponse__Output>
  UpdateRef: MethodDefinition<_githost_storage_v1_UpdateRefRequest, _githost_storage_v1_UpdateRefResponse, _githost_storage_v1_UpdateRefRequest__Output, _githost_storage_v1_UpdateRefResponse__Output>
  WatchRefs: MethodDefinition<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_RefsChanged, _githost_storage_v1_WatchRefsRequest__Output, _githost_storage_v1_RefsChanged__Output>
  WriteMerge: MethodDefinition<_githost_storage_v1_WriteMergeRequest, _githost_storage_v1_WriteMergeResponse, _githost_storage_v1_WriteMergeRequest__Output, _githost_storage_v1_WriteMergeResponse__Output>
}
