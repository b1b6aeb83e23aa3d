import { instrumentUnary, serverStream, unary, type grpc, type ServerInstruments } from '@githost/grpc';
import { storageProto, type StorageServiceHandlers } from '@githost/protos';
import type { StorageContext } from '../storage-context.js';
import { announceChange } from './announce-change.js';
import { checkMerge } from './check-merge.js';
import { compare } from './compare.js';
import { countCommits } from './count-commits.js';
import { createRepository } from './create-repository.js';
import { diff } from './diff.js';
import { isAncestor } from './is-ancestor.js';
import { listCommitChanges } from './list-commit-changes.js';
import { listCommits } from './list-commits.js';
import { encodeListRefsResponse, listRefs } from './list-refs.js';
import { mergeBase } from './merge-base.js';
import { readBlob } from './read-blob.js';
import { readCommit } from './read-commit.js';
import { readLfsObject } from './read-lfs-object.js';
import { readTree } from './read-tree.js';
import { readTreeStream } from './read-tree-stream.js';
import { removeRepository } from './remove-repository.js';
import { resolveCommitExpression } from './resolve-commit-expression.js';
import { resolveMergeTips } from './resolve-merge-tips.js';
import { resolveRevision } from './resolve-revision.js';
import { setDefaultBranch } from './set-default-branch.js';
import { updateRef } from './update-ref.js';
import { writeMerge } from './write-merge.js';

/** githost.storage.v1.StorageService: one handler per file, AppErrors mapped by the shared wrappers,
 *  every call timed by method and code and logged with the caller's request id. */
export function registerStorageService(server: grpc.Server, ctx: StorageContext, instruments?: ServerInstruments): void {
  const log = ctx.logger;
  const handlers: StorageServiceHandlers = {
    CreateRepository: instrumentUnary(createRepository(ctx), log, instruments),
    RemoveRepository: unary(removeRepository(ctx), log, instruments),
    ListRefs: unary(listRefs(ctx), log, instruments),
    ResolveRevision: unary(resolveRevision(ctx), log, instruments),
    ReadTree: unary(readTree(ctx), log, instruments),
    ReadTreeStream: serverStream(readTreeStream(ctx), log, instruments),
    ReadBlob: serverStream(readBlob(ctx), log, instruments),
    ReadCommit: unary(readCommit(ctx), log, instruments),
    ListCommits: unary(listCommits(ctx), log, instruments),
    CountCommits: unary(countCommits(ctx), log, instruments),
    IsAncestor: unary(isAncestor(ctx), log, instruments),
    ResolveMergeTips: unary(resolveMergeTips(ctx), log, instruments),
    MergeBase: unary(mergeBase(ctx), log, instruments),
    Diff: serverStream(diff(ctx), log, instruments),
    CheckMerge: unary(checkMerge(ctx), log, instruments),
    WriteMerge: unary(writeMerge(ctx), log, instruments),
    UpdateRef: unary(updateRef(ctx), log, instruments),
    WatchRefs: ctx.watchers.handler,
    Compare: unary(compare(ctx), log, instruments),
    SetDefaultBranch: unary(setDefaultBranch(ctx), log, instruments),
    ReadLfsObject: serverStream(readLfsObject(ctx), log, instruments),
    AnnounceChange: unary(announceChange(ctx), log, instruments),
    ListCommitChanges: unary(listCommitChanges(ctx), log, instruments),
    ResolveCommitExpression: unary(resolveCommitExpression(ctx), log, instruments),
  };
  const service = storageProto().githost.storage.v1.StorageService.service;
  // ListRefs' answer grows with the refs: written by its own encoder (list-refs.ts), the rest by protobufjs.
  server.addService({ ...service, ListRefs: { ...service.ListRefs, responseSerialize: encodeListRefsResponse } }, handlers);
}
