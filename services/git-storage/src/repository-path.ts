import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * Where a repository lives: `DATA_DIR/repos/@hashed/<h[0:2]>/<h[2:4]>/<h>.git`, h = sha256(id)
 * (Gitaly/GitLab hashed storage). Names from requests never become paths.
 */
export function repositoryPath(dataDir: string, repositoryId: string): string {
  const h = createHash('sha256').update(repositoryId).digest('hex');
  return path.join(path.resolve(dataDir), 'repos', '@hashed', h.slice(0, 2), h.slice(2, 4), `${h}.git`);
}
