import { validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** The most commits one call reads the changes of: a log page's worth (browse pages at most 100). */
export const MAX_CHANGES_COMMITS = 100;

/** Each commit's changed files and line counts (docs/decisions/gitea-api.md#stats-and-files), in one git process. */
export function listCommitChanges(ctx: StorageContext) {
  return async (
    req: storage.ListCommitChangesRequest__Output,
    call: grpc.ServerUnaryCall<storage.ListCommitChangesRequest__Output, storage.ListCommitChangesResponse>,
  ): Promise<storage.ListCommitChangesResponse> => {
    const oids = req.commit_oids ?? [];
    if (oids.length > MAX_CHANGES_COMMITS) throw validation(`at most ${MAX_CHANGES_COMMITS} commits`);
    oids.forEach((o) => validateOid(o, 'commit id'));
    if (oids.length === 0) return { commits: [] };
    const repo = await openRepository(ctx, req.repository_id);
    return { commits: await repo.listCommitChanges(oids, signalOf(call)) };
  };
}
