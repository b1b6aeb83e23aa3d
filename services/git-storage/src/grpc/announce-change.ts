import type { storage } from '@githost/protos';
import { validateRepositoryId } from '../git/validate.js';
import type { StorageContext } from '../storage-context.js';

/**
 * A change of a repository's facts other than its refs (merge requests, reviews, settings),
 * relayed to every watcher as a ref change is and answered once each acked it or was cut off, so
 * the writer that asked returns only after no watcher can answer from facts older than its write
 * (docs/decisions/pulls-at-the-edge.md). The repository need not be on disk: only its id is
 * relayed; `every_repository` relays an empty one, for every repository of this git-storage.
 */
export function announceChange(ctx: StorageContext) {
  return async (req: storage.AnnounceChangeRequest__Output): Promise<storage.AnnounceChangeResponse> => {
    const id = req.every_repository ? '' : validateRepositoryId(req.repository_id);
    await ctx.watchers.notify(id, { facts: true });
    return {};
  };
}
