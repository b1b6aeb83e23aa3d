import { validation } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { removeBareRepository } from '../git/repository.js';
import { validateRepositoryId } from '../git/validate.js';
import { repositoryPath } from '../repository-path.js';
import type { StorageContext } from '../storage-context.js';

/**
 * Idempotent: removing a repository that is not there succeeds (it undoes a half-created one).
 * Its git directory goes first, then its LFS objects: a kill between the two leaves objects no
 * repository reads, which the store's start-up recovery removes (docs/decisions/lfs.md#deletion).
 * With a context (a deletion, not an undo) the `repository_deleted` event is journaled once the
 * repository is gone; a retry after a failure journals it again (at least once, like every event).
 */
export function removeRepository(ctx: StorageContext) {
  return async (req: storage.RemoveRepositoryRequest__Output, call: grpc.ServerUnaryCall<storage.RemoveRepositoryRequest__Output, storage.RemoveRepositoryResponse>): Promise<storage.RemoveRepositoryResponse> => {
    const ec = req.context;
    if (ec && (!ec.owner || !ec.name)) throw validation('context.owner and context.name are required');
    const gitDir = repositoryPath(ctx.dataDir, validateRepositoryId(req.repository_id));
    ctx.pool.forget(gitDir);
    ctx.refUpdates.forget(gitDir);
    ctx.housekeeping.forget(gitDir);
    await removeBareRepository(gitDir);
    await ctx.lfs.removeRepository(req.repository_id);
    ctx.refs.invalidate(gitDir);
    ctx.cache.forget(gitDir);
    await ctx.watchers.notify(req.repository_id);
    if (ec) {
      await ctx.events.recordRepositoryDeleted({ repository: { id: req.repository_id, owner: ec.owner, name: ec.name }, pusher: ec.pusher || 'unknown', requestId: ec.request_id || requestIdOfCall(call) });
    }
    return {};
  };
}
