import { validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

const DEFAULT_MAX_COMMITS = 250;

/** Three-dot compare: merge base, ahead/behind counts, and head's commits (raw, from the cat-file pool). */
export function compare(ctx: StorageContext) {
  return async (req: storage.CompareRequest__Output, call: grpc.ServerUnaryCall<storage.CompareRequest__Output, storage.CompareResponse>): Promise<storage.CompareResponse> => {
    const base = validateOid(req.base_oid, 'base id');
    const head = validateOid(req.head_oid, 'head id');
    // proto3 has no presence for scalars: 0 means "not set", the default.
    const max = req.max_commits || DEFAULT_MAX_COMMITS;
    if (!Number.isInteger(max) || max < 1 || max > 1000) throw validation('max_commits must be between 1 and 1000');
    const repo = await openRepository(ctx, req.repository_id);
    const result = await repo.compare(base, head, max, ctx.compareBudget, signalOf(call));
    return {
      merge_base: result.mergeBase,
      ahead_by: result.aheadBy,
      behind_by: result.behindBy,
      commits: result.commits.map((c) => ({ oid: c.oid, raw: c.raw })),
    };
  };
}
