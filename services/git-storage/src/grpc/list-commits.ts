import { validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** A page of the log; a page asked for again (a branch that did not move) spawns no git. */
export function listCommits(ctx: StorageContext) {
  return async (req: storage.ListCommitsRequest__Output, call: grpc.ServerUnaryCall<storage.ListCommitsRequest__Output, storage.ListCommitsResponse>): Promise<storage.ListCommitsResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    if (!Number.isInteger(req.limit) || req.limit < 1 || req.limit > 1000) throw validation('limit must be between 1 and 1000');
    const offset = req.offset ?? 0;
    const repo = await openRepository(ctx, req.repository_id);
    const commits = await repo.listCommits(commit, req.limit, offset, signalOf(call));
    return { commits: commits.map((c) => ({ oid: c.oid, raw: c.raw })) };
  };
}
