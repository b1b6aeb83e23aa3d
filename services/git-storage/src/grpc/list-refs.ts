import { validation } from '@githost/errors';
import type { storage } from '@githost/protos';
import { openRepository, type StorageContext } from '../storage-context.js';

const DEFAULT_PREFIXES = ['refs/heads/', 'refs/tags/'];

/** Served from the refs cache: no git spawn unless a ref changed since the last call. */
export function listRefs(ctx: StorageContext) {
  return async (req: storage.ListRefsRequest__Output): Promise<storage.ListRefsResponse> => {
    const prefixes = req.prefixes.length > 0 ? req.prefixes : DEFAULT_PREFIXES;
    for (const p of prefixes) if (!p.startsWith('refs/') || p.length > 1024) throw validation(`Invalid ref prefix: ${p.slice(0, 100)}`);
    const repo = await openRepository(ctx, req.repository_id);
    const refs = await repo.listRefs(prefixes);
    return { refs: refs.map((r) => ({ name: r.name, target: r.target, peeled: r.peeled })) };
  };
}
