import { serverStream, unary, type grpc } from '@githost/grpc';
import { storageProto, type StorageServiceHandlers } from '@githost/protos';
import type { StorageContext } from '../storage-context.js';
import { checkMerge } from './check-merge.js';
import { createRepository } from './create-repository.js';
import { diff } from './diff.js';
import { isAncestor } from './is-ancestor.js';
import { listCommits } from './list-commits.js';
import { listRefs } from './list-refs.js';
import { mergeBase } from './merge-base.js';
import { readBlob } from './read-blob.js';
import { readCommit } from './read-commit.js';
import { readTree } from './read-tree.js';
import { removeRepository } from './remove-repository.js';
import { resolveRevision } from './resolve-revision.js';
import { updateRef } from './update-ref.js';
import { writeMerge } from './write-merge.js';

/** githost.storage.v1.StorageService: one handler per file, AppErrors mapped by the shared wrappers. */
export function registerStorageService(server: grpc.Server, ctx: StorageContext): void {
  const log = ctx.logger;
  const handlers: StorageServiceHandlers = {
    CreateRepository: createRepository(ctx),
    RemoveRepository: unary(removeRepository(ctx), log),
    ListRefs: unary(listRefs(ctx), log),
    ResolveRevision: unary(resolveRevision(ctx), log),
    ReadTree: unary(readTree(ctx), log),
    ReadBlob: serverStream(readBlob(ctx), log),
    ReadCommit: unary(readCommit(ctx), log),
    ListCommits: unary(listCommits(ctx), log),
    IsAncestor: unary(isAncestor(ctx), log),
    MergeBase: unary(mergeBase(ctx), log),
    Diff: serverStream(diff(ctx), log),
    CheckMerge: unary(checkMerge(ctx), log),
    WriteMerge: unary(writeMerge(ctx), log),
    UpdateRef: unary(updateRef(ctx), log),
  };
  server.addService(storageProto().githost.storage.v1.StorageService.service, handlers);
}
