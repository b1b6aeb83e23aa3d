import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { logPathOf, notOidOf } from './list-commits.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** The length of a log ListCommits pages (docs/decisions/gitea-api.md#commits), path and not_oid checked as there. */
export function countCommits(ctx: StorageContext) {
  return async (req: storage.CountCommitsRequest__Output, call: grpc.ServerUnaryCall<storage.CountCommitsRequest__Output, storage.CountCommitsResponse>): Promise<storage.CountCommitsResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = logPathOf(req.path ?? '');
    const not = notOidOf(req.not_oid ?? '');
    const repo = await openRepository(ctx, req.repository_id);
    return { count: await repo.countCommits(commit, signalOf(call), path, not) };
  };
}
