import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AnnounceChangeRequest as _githost_storage_v1_AnnounceChangeRequest, AnnounceChangeRequest__Output as _githost_storage_v1_AnnounceChangeRequest__Output } from './githost/storage/v1/AnnounceChangeRequest.js';
import type { AnnounceChangeResponse as _githost_storage_v1_AnnounceChangeResponse, AnnounceChangeResponse__Output as _githost_storage_v1_AnnounceChangeResponse__Output } from './githost/storage/v1/AnnounceChangeResponse.js';
import type { ChangedFile as _githost_storage_v1_ChangedFile, ChangedFile__Output as _githost_storage_v1_ChangedFile__Output } from './githost/storage/v1/ChangedFile.js';
import type { CheckMergeRequest as _githost_storage_v1_CheckMergeRequest, CheckMergeRequest__Output as _githost_storage_v1_CheckMergeRequest__Output } from './githost/storage/v1/CheckMergeRequest.js';
import type { CheckMergeResponse as _githost_storage_v1_CheckMergeResponse, CheckMergeResponse__Output as _githost_storage_v1_CheckMergeResponse__Output } from './githost/storage/v1/CheckMergeResponse.js';
import type { Commit as _githost_storage_v1_Commit, Commit__Output as _githost_storage_v1_Commit__Output } from './githost/storage/v1/Commit.js';
import type { CommitChanges as _githost_storage_v1_CommitChanges, CommitChanges__Output as _githost_storage_v1_CommitChanges__Output } from './githost/storage/v1/CommitChanges.js';
import type { CompareRequest as _githost_storage_v1_CompareRequest, CompareRequest__Output as _githost_storage_v1_CompareRequest__Output } from './githost/storage/v1/CompareRequest.js';
import type { CompareResponse as _githost_storage_v1_CompareResponse, CompareResponse__Output as _githost_storage_v1_CompareResponse__Output } from './githost/storage/v1/CompareResponse.js';
import type { CountCommitsRequest as _githost_storage_v1_CountCommitsRequest, CountCommitsRequest__Output as _githost_storage_v1_CountCommitsRequest__Output } from './githost/storage/v1/CountCommitsRequest.js';
import type { CountCommitsResponse as _githost_storage_v1_CountCommitsResponse, CountCommitsResponse__Output as _githost_storage_v1_CountCommitsResponse__Output } from './githost/storage/v1/CountCommitsResponse.js';
import type { CreateRepositoryRequest as _githost_storage_v1_CreateRepositoryRequest, CreateRepositoryRequest__Output as _githost_storage_v1_CreateRepositoryRequest__Output } from './githost/storage/v1/CreateRepositoryRequest.js';
import type { CreateRepositoryResponse as _githost_storage_v1_CreateRepositoryResponse, CreateRepositoryResponse__Output as _githost_storage_v1_CreateRepositoryResponse__Output } from './githost/storage/v1/CreateRepositoryResponse.js';
import type { DiffFile as _githost_storage_v1_DiffFile, DiffFile__Output as _githost_storage_v1_DiffFile__Output } from './githost/storage/v1/DiffFile.js';
import type { DiffRequest as _githost_storage_v1_DiffRequest, DiffRequest__Output as _githost_storage_v1_DiffRequest__Output } from './githost/storage/v1/DiffRequest.js';
import type { DiffResponse as _githost_storage_v1_DiffResponse, DiffResponse__Output as _githost_storage_v1_DiffResponse__Output } from './githost/storage/v1/DiffResponse.js';
import type { EventContext as _githost_storage_v1_EventContext, EventContext__Output as _githost_storage_v1_EventContext__Output } from './githost/storage/v1/EventContext.js';
import type { IsAncestorRequest as _githost_storage_v1_IsAncestorRequest, IsAncestorRequest__Output as _githost_storage_v1_IsAncestorRequest__Output } from './githost/storage/v1/IsAncestorRequest.js';
import type { IsAncestorResponse as _githost_storage_v1_IsAncestorResponse, IsAncestorResponse__Output as _githost_storage_v1_IsAncestorResponse__Output } from './githost/storage/v1/IsAncestorResponse.js';
import type { ListCommitChangesRequest as _githost_storage_v1_ListCommitChangesRequest, ListCommitChangesRequest__Output as _githost_storage_v1_ListCommitChangesRequest__Output } from './githost/storage/v1/ListCommitChangesRequest.js';
import type { ListCommitChangesResponse as _githost_storage_v1_ListCommitChangesResponse, ListCommitChangesResponse__Output as _githost_storage_v1_ListCommitChangesResponse__Output } from './githost/storage/v1/ListCommitChangesResponse.js';
import type { ListCommitsRequest as _githost_storage_v1_ListCommitsRequest, ListCommitsRequest__Output as _githost_storage_v1_ListCommitsRequest__Output } from './githost/storage/v1/ListCommitsRequest.js';
import type { ListCommitsResponse as _githost_storage_v1_ListCommitsResponse, ListCommitsResponse__Output as _githost_storage_v1_ListCommitsResponse__Output } from './githost/storage/v1/ListCommitsResponse.js';
import type { ListRefsRequest as _githost_storage_v1_ListRefsRequest, ListRefsRequest__Output as _githost_storage_v1_ListRefsRequest__Output } from './githost/storage/v1/ListRefsRequest.js';
import type { ListRefsResponse as _githost_storage_v1_ListRefsResponse, ListRefsResponse__Output as _githost_storage_v1_ListRefsResponse__Output } from './githost/storage/v1/ListRefsResponse.js';
import type { MergeBaseRequest as _githost_storage_v1_MergeBaseRequest, MergeBaseRequest__Output as _githost_storage_v1_MergeBaseRequest__Output } from './githost/storage/v1/MergeBaseRequest.js';
import type { MergeBaseResponse as _githost_storage_v1_MergeBaseResponse, MergeBaseResponse__Output as _githost_storage_v1_MergeBaseResponse__Output } from './githost/storage/v1/MergeBaseResponse.js';
import type { ReadBlobRequest as _githost_storage_v1_ReadBlobRequest, ReadBlobRequest__Output as _githost_storage_v1_ReadBlobRequest__Output } from './githost/storage/v1/ReadBlobRequest.js';
import type { ReadBlobResponse as _githost_storage_v1_ReadBlobResponse, ReadBlobResponse__Output as _githost_storage_v1_ReadBlobResponse__Output } from './githost/storage/v1/ReadBlobResponse.js';
import type { ReadCommitRequest as _githost_storage_v1_ReadCommitRequest, ReadCommitRequest__Output as _githost_storage_v1_ReadCommitRequest__Output } from './githost/storage/v1/ReadCommitRequest.js';
import type { ReadCommitResponse as _githost_storage_v1_ReadCommitResponse, ReadCommitResponse__Output as _githost_storage_v1_ReadCommitResponse__Output } from './githost/storage/v1/ReadCommitResponse.js';
import type { ReadLfsObjectRequest as _githost_storage_v1_ReadLfsObjectRequest, ReadLfsObjectRequest__Output as _githost_storage_v1_ReadLfsObjectRequest__Output } from './githost/storage/v1/ReadLfsObjectRequest.js';
import type { ReadLfsObjectResponse as _githost_storage_v1_ReadLfsObjectResponse, ReadLfsObjectResponse__Output as _githost_storage_v1_ReadLfsObjectResponse__Output } from './githost/storage/v1/ReadLfsObjectResponse.js';
import type { ReadTreeRequest as _githost_storage_v1_ReadTreeRequest, ReadTreeRequest__Output as _githost_storage_v1_ReadTreeRequest__Output } from './githost/storage/v1/ReadTreeRequest.js';
import type { ReadTreeResponse as _githost_storage_v1_ReadTreeResponse, ReadTreeResponse__Output as _githost_storage_v1_ReadTreeResponse__Output } from './githost/storage/v1/ReadTreeResponse.js';
import type { ReadTreeStreamRequest as _githost_storage_v1_ReadTreeStreamRequest, ReadTreeStreamRequest__Output as _githost_storage_v1_ReadTreeStreamRequest__Output } from './githost/storage/v1/ReadTreeStreamRequest.js';
import type { ReadTreeStreamResponse as _githost_storage_v1_ReadTreeStreamResponse, ReadTreeStreamResponse__Output as _githost_storage_v1_ReadTreeStreamResponse__Output } from './githost/storage/v1/ReadTreeStreamResponse.js';
import type { Ref as _githost_storage_v1_Ref, Ref__Output as _githost_storage_v1_Ref__Output } from './githost/storage/v1/Ref.js';
import type { RefsChanged as _githost_storage_v1_RefsChanged, RefsChanged__Output as _githost_storage_v1_RefsChanged__Output } from './githost/storage/v1/RefsChanged.js';
import type { RemoveRepositoryRequest as _githost_storage_v1_RemoveRepositoryRequest, RemoveRepositoryRequest__Output as _githost_storage_v1_RemoveRepositoryRequest__Output } from './githost/storage/v1/RemoveRepositoryRequest.js';
import type { RemoveRepositoryResponse as _githost_storage_v1_RemoveRepositoryResponse, RemoveRepositoryResponse__Output as _githost_storage_v1_RemoveRepositoryResponse__Output } from './githost/storage/v1/RemoveRepositoryResponse.js';
import type { ResolveCommitExpressionRequest as _githost_storage_v1_ResolveCommitExpressionRequest, ResolveCommitExpressionRequest__Output as _githost_storage_v1_ResolveCommitExpressionRequest__Output } from './githost/storage/v1/ResolveCommitExpressionRequest.js';
import type { ResolveCommitExpressionResponse as _githost_storage_v1_ResolveCommitExpressionResponse, ResolveCommitExpressionResponse__Output as _githost_storage_v1_ResolveCommitExpressionResponse__Output } from './githost/storage/v1/ResolveCommitExpressionResponse.js';
import type { ResolveMergeTipsRequest as _githost_storage_v1_ResolveMergeTipsRequest, ResolveMergeTipsRequest__Output as _githost_storage_v1_ResolveMergeTipsRequest__Output } from './githost/storage/v1/ResolveMergeTipsRequest.js';
import type { ResolveMergeTipsResponse as _githost_storage_v1_ResolveMergeTipsResponse, ResolveMergeTipsResponse__Output as _githost_storage_v1_ResolveMergeTipsResponse__Output } from './githost/storage/v1/ResolveMergeTipsResponse.js';
import type { ResolveRevisionRequest as _githost_storage_v1_ResolveRevisionRequest, ResolveRevisionRequest__Output as _githost_storage_v1_ResolveRevisionRequest__Output } from './githost/storage/v1/ResolveRevisionRequest.js';
import type { ResolveRevisionResponse as _githost_storage_v1_ResolveRevisionResponse, ResolveRevisionResponse__Output as _githost_storage_v1_ResolveRevisionResponse__Output } from './githost/storage/v1/ResolveRevisionResponse.js';
import type { SetDefaultBranchRequest as _githost_storage_v1_SetDefaultBranchRequest, SetDefaultBranchRequest__Output as _githost_storage_v1_SetDefaultBranchRequest__Output } from './githost/storage/v1/SetDefaultBranchRequest.js';
import type { SetDefaultBranchResponse as _githost_storage_v1_SetDefaultBranchResponse, SetDefaultBranchResponse__Output as _githost_storage_v1_SetDefaultBranchResponse__Output } from './githost/storage/v1/SetDefaultBranchResponse.js';
import type { Signature as _githost_storage_v1_Signature, Signature__Output as _githost_storage_v1_Signature__Output } from './githost/storage/v1/Signature.js';
import type { StorageServiceClient as _githost_storage_v1_StorageServiceClient, StorageServiceDefinition as _githost_storage_v1_StorageServiceDefinition } from './githost/storage/v1/StorageService.js';
import type { UpdateRefRequest as _githost_storage_v1_UpdateRefRequest, UpdateRefRequest__Output as _githost_storage_v1_UpdateRefRequest__Output } from './githost/storage/v1/UpdateRefRequest.js';
import type { UpdateRefResponse as _githost_storage_v1_UpdateRefResponse, UpdateRefResponse__Output as _githost_storage_v1_UpdateRefResponse__Output } from './githost/storage/v1/UpdateRefResponse.js';
import type { WatchRefsRequest as _githost_storage_v1_WatchRefsRequest, WatchRefsRequest__Output as _githost_storage_v1_WatchRefsRequest__Output } from './githost/storage/v1/WatchRefsRequest.js';
import type { WriteMergeRequest as _githost_storage_v1_WriteMergeRequest, WriteMergeRequest__Output as _githost_storage_v1_WriteMergeRequest__Output } from './githost/storage/v1/WriteMergeRequest.js';
import type { WriteMergeResponse as _githost_storage_v1_WriteMergeResponse, WriteMergeResponse__Output as _githost_storage_v1_WriteMergeResponse__Output } from './githost/storage/v1/WriteMergeResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  githost: {
    storage: {
      v1: {
        AnnounceChangeRequest: MessageTypeDefinition<_githost_storage_v1_AnnounceChangeRequest, _githost_storage_v1_AnnounceChangeRequest__Output>
        AnnounceChangeResponse: MessageTypeDefinition<_githost_storage_v1_AnnounceChangeResponse, _githost_storage_v1_AnnounceChangeResponse__Output>
        ChangedFile: MessageTypeDefinition<_githost_storage_v1_ChangedFile, _githost_storage_v1_ChangedFile__Output>
        CheckMergeRequest: MessageTypeDefinition<_githost_storage_v1_CheckMergeRequest, _githost_storage_v1_CheckMergeRequest__Output>
        CheckMergeResponse: MessageTypeDefinition<_githost_storage_v1_CheckMergeResponse, _githost_storage_v1_CheckMergeResponse__Output>
        Commit: MessageTypeDefinition<_githost_storage_v1_Commit, _githost_storage_v1_Commit__Output>
        CommitChanges: MessageTypeDefinition<_githost_storage_v1_CommitChanges, _githost_storage_v1_CommitChanges__Output>
        CompareRequest: MessageTypeDefinition<_githost_storage_v1_CompareRequest, _githost_storage_v1_CompareRequest__Output>
        CompareResponse: MessageTypeDefinition<_githost_storage_v1_CompareResponse, _githost_storage_v1_CompareResponse__Output>
        CountCommitsRequest: MessageTypeDefinition<_githost_storage_v1_CountCommitsRequest, _githost_storage_v1_CountCommitsRequest__Output>
        CountCommitsResponse: MessageTypeDefinition<_githost_storage_v1_CountCommitsResponse, _githost_storage_v1_CountCommitsResponse__Output>
        CreateRepositoryRequest: MessageTypeDefinition<_githost_storage_v1_CreateRepositoryRequest, _githost_storage_v1_CreateRepositoryRequest__Output>
        CreateRepositoryResponse: MessageTypeDefinition<_githost_storage_v1_CreateRepositoryResponse, _githost_storage_v1_CreateRepositoryResponse__Output>
        DiffFile: MessageTypeDefinition<_githost_storage_v1_DiffFile, _githost_storage_v1_DiffFile__Output>
        DiffRequest: MessageTypeDefinition<_githost_storage_v1_DiffRequest, _githost_storage_v1_DiffRequest__Output>
        DiffResponse: MessageTypeDefinition<_githost_storage_v1_DiffResponse, _githost_storage_v1_DiffResponse__Output>
        EventContext: MessageTypeDefinition<_githost_storage_v1_EventContext, _githost_storage_v1_EventContext__Output>
        IsAncestorRequest: MessageTypeDefinition<_githost_storage_v1_IsAncestorRequest, _githost_storage_v1_IsAncestorRequest__Output>
        IsAncestorResponse: MessageTypeDefinition<_githost_storage_v1_IsAncestorResponse, _githost_storage_v1_IsAncestorResponse__Output>
        ListCommitChangesRequest: MessageTypeDefinition<_githost_storage_v1_ListCommitChangesRequest, _githost_storage_v1_ListCommitChangesRequest__Output>
        ListCommitChangesResponse: MessageTypeDefinition<_githost_storage_v1_ListCommitChangesResponse, _githost_storage_v1_ListCommitChangesResponse__Output>
        ListCommitsRequest: MessageTypeDefinition<_githost_storage_v1_ListCommitsRequest, _githost_storage_v1_ListCommitsRequest__Output>
        ListCommitsResponse: MessageTypeDefinition<_githost_storage_v1_ListCommitsResponse, _githost_storage_v1_ListCommitsResponse__Output>
        ListRefsRequest: MessageTypeDefinition<_githost_storage_v1_ListRefsRequest, _githost_storage_v1_ListRefsRequest__Output>
        ListRefsResponse: MessageTypeDefinition<_githost_storage_v1_ListRefsResponse, _githost_storage_v1_ListRefsResponse__Output>
        MergeBaseRequest: MessageTypeDefinition<_githost_storage_v1_MergeBaseRequest, _githost_storage_v1_MergeBaseRequest__Output>
        MergeBaseResponse: MessageTypeDefinition<_githost_storage_v1_MergeBaseResponse, _githost_storage_v1_MergeBaseResponse__Output>
        ReadBlobRequest: MessageTypeDefinition<_githost_storage_v1_ReadBlobRequest, _githost_storage_v1_ReadBlobRequest__Output>
        ReadBlobResponse: MessageTypeDefinition<_githost_storage_v1_ReadBlobResponse, _githost_storage_v1_ReadBlobResponse__Output>
        ReadCommitRequest: MessageTypeDefinition<_githost_storage_v1_ReadCommitRequest, _githost_storage_v1_ReadCommitRequest__Output>
        ReadCommitResponse: MessageTypeDefinition<_githost_storage_v1_ReadCommitResponse, _githost_storage_v1_ReadCommitResponse__Output>
        ReadLfsObjectRequest: MessageTypeDefinition<_githost_storage_v1_ReadLfsObjectRequest, _githost_storage_v1_ReadLfsObjectRequest__Output>
        ReadLfsObjectResponse: MessageTypeDefinition<_githost_storage_v1_ReadLfsObjectResponse, _githost_storage_v1_ReadLfsObjectResponse__Output>
        ReadTreeRequest: MessageTypeDefinition<_githost_storage_v1_ReadTreeRequest, _githost_storage_v1_ReadTreeRequest__Output>
        ReadTreeResponse: MessageTypeDefinition<_githost_storage_v1_ReadTreeResponse, _githost_storage_v1_ReadTreeResponse__Output>
        ReadTreeStreamRequest: MessageTypeDefinition<_githost_storage_v1_ReadTreeStreamRequest, _githost_storage_v1_ReadTreeStreamRequest__Output>
        ReadTreeStreamResponse: MessageTypeDefinition<_githost_storage_v1_ReadTreeStreamResponse, _githost_storage_v1_ReadTreeStreamResponse__Output>
        Ref: MessageTypeDefinition<_githost_storage_v1_Ref, _githost_storage_v1_Ref__Output>
        RefsChanged: MessageTypeDefinition<_githost_storage_v1_RefsChanged, _githost_storage_v1_RefsChanged__Output>
        RemoveRepositoryRequest: MessageTypeDefinition<_githost_storage_v1_RemoveRepositoryRequest, _githost_storage_v1_RemoveRepositoryRequest__Output>
        RemoveRepositoryResponse: MessageTypeDefinition<_githost_storage_v1_RemoveRepositoryResponse, _githost_storage_v1_RemoveRepositoryResponse__Output>
        ResolveCommitExpressionRequest: MessageTypeDefinition<_githost_storage_v1_ResolveCommitExpressionRequest, _githost_storage_v1_ResolveCommitExpressionRequest__Output>
        ResolveCommitExpressionResponse: MessageTypeDefinition<_githost_storage_v1_ResolveCommitExpressionResponse, _githost_storage_v1_ResolveCommitExpressionResponse__Output>
        ResolveMergeTipsRequest: MessageTypeDefinition<_githost_storage_v1_ResolveMergeTipsRequest, _githost_storage_v1_ResolveMergeTipsRequest__Output>
        ResolveMergeTipsResponse: MessageTypeDefinition<_githost_storage_v1_ResolveMergeTipsResponse, _githost_storage_v1_ResolveMergeTipsResponse__Output>
        ResolveRevisionRequest: MessageTypeDefinition<_githost_storage_v1_ResolveRevisionRequest, _githost_storage_v1_ResolveRevisionRequest__Output>
        ResolveRevisionResponse: MessageTypeDefinition<_githost_storage_v1_ResolveRevisionResponse, _githost_storage_v1_ResolveRevisionResponse__Output>
        SetDefaultBranchRequest: MessageTypeDefinition<_githost_storage_v1_SetDefaultBranchRequest, _githost_storage_v1_SetDefaultBranchRequest__Output>
        SetDefaultBranchResponse: MessageTypeDefinition<_githost_storage_v1_SetDefaultBranchResponse, _githost_storage_v1_SetDefaultBranchResponse__Output>
        Signature: MessageTypeDefinition<_githost_storage_v1_Signature, _githost_storage_v1_Signature__Output>
        StorageService: SubtypeConstructor<typeof grpc.Client, _githost_storage_v1_StorageServiceClient> & { service: _githost_storage_v1_StorageServiceDefinition }
        UpdateRefRequest: MessageTypeDefinition<_githost_storage_v1_UpdateRefRequest, _githost_storage_v1_UpdateRefRequest__Output>
        UpdateRefResponse: MessageTypeDefinition<_githost_storage_v1_UpdateRefResponse, _githost_storage_v1_UpdateRefResponse__Output>
        WatchRefsRequest: MessageTypeDefinition<_githost_storage_v1_WatchRefsRequest, _githost_storage_v1_WatchRefsRequest__Output>
        WriteMergeRequest: MessageTypeDefinition<_githost_storage_v1_WriteMergeRequest, _githost_storage_v1_WriteMergeRequest__Output>
        WriteMergeResponse: MessageTypeDefinition<_githost_storage_v1_WriteMergeResponse, _githost_storage_v1_WriteMergeResponse__Output>
      }
    }
  }
}

