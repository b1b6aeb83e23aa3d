import { AppError } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import type { LocalRepository } from '../git/local-repository.js';
import { validateRefName } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/**
 * A merge's tips and their ancestry in one call: merge-requests otherwise asks ResolveRevision
 * twice, then IsAncestor, one round trip after the other (bench/RESULTS.md "Merge requests").
 * Once answered, it starts the read of the rules its UpdateRef will check (ReadAheadRefPolicies).
 */
export function resolveMergeTips(ctx: StorageContext) {
  return async (
    req: storage.ResolveMergeTipsRequest__Output,
    call: grpc.ServerUnaryCall<storage.ResolveMergeTipsRequest__Output, storage.ResolveMergeTipsResponse>,
  ): Promise<storage.ResolveMergeTipsResponse> => {
    const repo = await openRepository(ctx, req.repository_id);
    const [source, target] = await Promise.all([tipOf(repo, req.source_ref), tipOf(repo, req.target_ref)]);
    if (source === '' || target === '') return { source_oid: source, target_oid: target, target_in_source: false };
    const signal = signalOf(call);
    const targetInSource = source === target || (await repo.isAncestor(target, source, signal, req.prepare_merge));
    // After the answer is on its way: the read overlaps what the merge does before its move.
    const requestId = requestIdOfCall(call);
    if (requestId && ctx.policies.readAhead) setImmediate(() => ctx.policies.readAhead!(req.repository_id, requestId));
    return { source_oid: source, target_oid: target, target_in_source: targetInSource };
  };
}

/** '' for a ref that does not exist, or a name no ref can have (as ResolveRevision's NOT_FOUND and
 *  INVALID_ARGUMENT, which merge-requests reads as "branch not found"). */
async function tipOf(repo: LocalRepository, ref: string): Promise<string> {
  try {
    return await repo.resolveRevision(validateRefName(ref));
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return '';
    throw err;
  }
}
