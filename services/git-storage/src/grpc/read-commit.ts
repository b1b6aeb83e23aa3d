import { notFound } from '@githost/errors';
import type { storage } from '@githost/protos';
import { readCommitObject } from '../git/objects.js';
import { validateAbbrevOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

export function readCommit(ctx: StorageContext) {
  return async (req: storage.ReadCommitRequest__Output): Promise<storage.ReadCommitResponse> => {
    const rev = validateAbbrevOid(req.revision, 'commit id');
    const gitDir = await existingRepository(ctx, req.repository_id);
    const commit = await readCommitObject(ctx.pool, gitDir, rev);
    if (!commit) throw notFound(`Commit not found: ${rev}`);
    return { commit: { oid: commit.oid, raw: commit.raw } };
  };
}
