import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where git-storage keeps a repository (docs/architecture.md#repositories-on-disk), so the raw
 * comparisons read the very same pack the service reads. Falls back to `fallback` when the
 * layout is not there (e.g. a different storage layout).
 */
export function hostedRepoPath(dataDir: string, repositoryId: string, fallback: string): string {
  const h = createHash('sha256').update(repositoryId).digest('hex');
  const path = join(dataDir, 'repos', '@hashed', h.slice(0, 2), h.slice(2, 4), `${h}.git`);
  return existsSync(path) ? path : fallback;
}
