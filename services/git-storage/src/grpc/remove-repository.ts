import type { storage } from '@githost/protos';
import { removeBareRepository } from '../git/repository.js';
import { validateRepositoryId } from '../git/validate.js';
import { repositoryPath } from '../repository-path.js';
import type { StorageContext } from '../storage-context.js';

/** Idempotent: removing a repository that is not there succeeds (it undoes a half-created one). */
export function removeRepository(ctx: StorageContext) {
  return async (req: storage.RemoveRepositoryRequest__Output): Promise<storage.RemoveRepositoryResponse> => {
    const gitDir = repositoryPath(ctx.dataDir, validateRepositoryId(req.repository_id));
    ctx.pool.forget(gitDir);
    ctx.housekeeping.forget(gitDir);
    await removeBareRepository(gitDir);
    ctx.refs.invalidate(gitDir);
    ctx.cache.forget(gitDir);
    await ctx.watchers.notify(req.repository_id);
    return {};
  };
}
