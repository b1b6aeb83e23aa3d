import type { storage } from '@githost/protos';
import { validateOid, validatePath } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

export function readTree(ctx: StorageContext) {
  return async (req: storage.ReadTreeRequest__Output): Promise<storage.ReadTreeResponse> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = validatePath(req.path, { allowEmpty: true });
    const repo = await openRepository(ctx, req.repository_id);
    const listing = await repo.readTree(commit, path, { requireCommit: req.require_commit === true, limit: req.limit });
    return { tree_oid: listing.treeOid, entries: listing.entries, count: listing.count };
  };
}
