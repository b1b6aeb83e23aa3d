import { forbidden, notFound } from '@githost/errors';
import { canRead, canWrite } from '@githost/identity';
import type { Permission } from './types.js';

/** The repository and permission the gateway resolved and signed for this request. */
export interface RepoAccess {
  id: string;
  permission: Permission;
}

export const REPOSITORY_NOT_FOUND = 'Repository not found';

/** Read access, else the same 404 as a missing repository (CONTRACT §9 Access). */
export function readableRepositoryId(access: RepoAccess | null): string {
  if (!access || !canRead(access.permission)) throw notFound(REPOSITORY_NOT_FOUND);
  return access.id;
}

/** Write access; a reader gets 403 `Forbidden`, a caller who cannot read the repository 404. */
export function writableRepositoryId(access: RepoAccess | null): string {
  const id = readableRepositoryId(access);
  if (!canWrite(access!.permission)) throw forbidden();
  return id;
}

/**
 * CONTRACT §9 Access: only the owner or a site admin (permission `admin`) manages a repository
 * (collaborators, protections, settings, deletion); a reader or writer gets 403 `Forbidden`, a
 * caller who cannot read it the 404 of a missing repository.
 */
export function manageableRepositoryId(access: RepoAccess | null): string {
  const id = readableRepositoryId(access);
  if (access!.permission !== 'admin') throw forbidden();
  return id;
}

/** The caller's permission on a repository it may read (a stranger's is the 404 of a missing one). */
export function readablePermission(access: RepoAccess | null): Permission {
  readableRepositoryId(access);
  return access!.permission;
}
