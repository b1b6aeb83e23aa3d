import type { storage } from '@githost/protos';
import { validateBranchName } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/**
 * SetDefaultBranch: HEAD becomes a symbolic ref to refs/heads/<branch>, so a clone checks that
 * branch out. The branch need not exist (an empty repository); accounts decides whether it must.
 * Watchers are told, since readers that resolve the default branch may cache by refs version; the
 * change names no moved ref (refs known, none), so a reader holding the refs keeps them and only
 * moves their version (browse's snapshot: docs/decisions/ref-pages.md#pages-from-the-kept-list).
 */
export function setDefaultBranch(ctx: StorageContext) {
  return async (req: storage.SetDefaultBranchRequest__Output): Promise<storage.SetDefaultBranchResponse> => {
    const branch = validateBranchName(req.branch);
    const repo = await openRepository(ctx, req.repository_id);
    await repo.setDefaultBranch(branch);
    await ctx.watchers.notify(req.repository_id, { refs: [] });
    return {};
  };
}
