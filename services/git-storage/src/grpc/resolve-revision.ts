import type { storage } from '@githost/protos';
import { validateRevision } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

export function resolveRevision(ctx: StorageContext) {
  return async (req: storage.ResolveRevisionRequest__Output): Promise<storage.ResolveRevisionResponse> => {
    const revision = validateRevision(req.revision);
    const repo = await openRepository(ctx, req.repository_id);
    return { oid: await repo.resolveRevision(revision) };
  };
}
