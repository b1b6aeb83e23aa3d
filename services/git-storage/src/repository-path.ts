import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * Where a repository lives: `DATA_DIR/repos/@hashed/<h[0:2]>/<h[2:4]>/<h>.git`, h = sha256(id)
 * (Gitaly/GitLab hashed storage). Names from requests never become paths.
 */
export function repositoryPath(dataDir: string, repositoryId: string): string {
  return repositoryPathOfHash(dataDir, repositoryHash(repositoryId));
}

/** The same path from the repository's hash (the name of its other folders, such as its LFS objects'). */
export function repositoryPathOfHash(dataDir: string, h: string): string {
  return path.join(path.resolve(dataDir), 'repos', '@hashed', h.slice(0, 2), h.slice(2, 4), `${h}.git`);
}

/** The name a repository's folders have on disk: sha256 of its id, never a name from a request. */
export function repositoryHash(repositoryId: string): string {
  return createHash('sha256').update(repositoryId).digest('hex');
}
