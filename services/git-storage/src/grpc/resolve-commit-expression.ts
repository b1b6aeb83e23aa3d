import type { storage } from '@githost/protos';
import { validateCommitExpression } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** A revision expression's commit (docs/decisions/gitea-api.md#revision-expressions), checked before git sees it. */
export function resolveCommitExpression(ctx: StorageContext) {
  return async (req: storage.ResolveCommitExpressionRequest__Output): Promise<storage.ResolveCommitExpressionResponse> => {
    const expression = validateCommitExpression(req.expression);
    const repo = await openRepository(ctx, req.repository_id);
    return { oid: await repo.resolveCommitExpression(expression) };
  };
}
