import type { storage } from '@githost/protos';
import { validateAbbrevOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

export function readCommit(ctx: StorageContext) {
  return async (req: storage.ReadCommitRequest__Output): Promise<storage.ReadCommitResponse> => {
    const rev = validateAbbrevOid(req.revision, 'commit id');
    const repo = await openRepository(ctx, req.repository_id);
    const commit = await repo.readCommit(rev);
    return { commit: { oid: commit.oid, raw: commit.raw } };
  };
}
