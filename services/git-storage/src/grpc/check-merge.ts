import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

export function checkMerge(ctx: StorageContext) {
  return async (req: storage.CheckMergeRequest__Output, call: grpc.ServerUnaryCall<storage.CheckMergeRequest__Output, storage.CheckMergeResponse>): Promise<storage.CheckMergeResponse> => {
    const ours = validateOid(req.ours_oid, 'ours id');
    const theirs = validateOid(req.theirs_oid, 'theirs id');
    const repo = await openRepository(ctx, req.repository_id);
    const r = await repo.checkMerge(ours, theirs, signalOf(call));
    return r.clean ? { clean: true, conflicts: [], tree_oid: r.tree } : { clean: false, conflicts: r.conflicts, tree_oid: '' };
  };
}
