import { notFound } from '@githost/errors';
import type { storage } from '@githost/protos';
import { resolveCommitOid } from '../git/objects.js';
import { validateRevision } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

/** Refs come from the refs cache; hex ids (and annotated tags) are peeled by the cat-file pool. */
export function resolveRevision(ctx: StorageContext) {
  return async (req: storage.ResolveRevisionRequest__Output): Promise<storage.ResolveRevisionResponse> => {
    const revision = validateRevision(req.revision);
    const gitDir = await existingRepository(ctx, req.repository_id);
    if (revision.startsWith('refs/')) {
      const ref = await ctx.refs.get(gitDir, revision);
      if (!ref) throw notFound(`Ref not found: ${revision}`);
      if (ref.type === 'commit') return { oid: ref.target };
      const oid = ref.type === 'tag' ? await resolveCommitOid(ctx.pool, gitDir, ref.target) : null;
      if (!oid) throw notFound(`Ref not found: ${revision}`);
      return { oid };
    }
    const oid = await resolveCommitOid(ctx.pool, gitDir, revision);
    if (!oid) throw notFound(`Commit not found: ${revision}`);
    return { oid };
  };
}
