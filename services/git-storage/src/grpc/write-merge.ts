import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** Writes the merge (or squash) commit only; moving the target ref is UpdateRef's compare-and-swap. */
export function writeMerge(ctx: StorageContext) {
  return async (req: storage.WriteMergeRequest__Output, call: grpc.ServerUnaryCall<storage.WriteMergeRequest__Output, storage.WriteMergeResponse>): Promise<storage.WriteMergeResponse> => {
    const ours = validateOid(req.ours_oid, 'ours id');
    const theirs = validateOid(req.theirs_oid, 'theirs id');
    const repo = await openRepository(ctx, req.repository_id);
    const { commit, tree } = await repo.writeMerge(ours, theirs, { squash: req.squash, author: req.author, committer: req.committer, message: req.message }, signalOf(call));
    return { commit_oid: commit, tree_oid: tree };
  };
}
