import type { Caller, CollaboratorPermission, Permission, Repository } from './types.js';

/**
 * CONTRACT §3: the owner and site admins have write (reported as `admin`, which also allows
 * managing collaborators); collaborators have their `read` or `write`; anyone, anonymous
 * included, reads a public repository; everyone else has nothing.
 */
export function permissionFor(repo: Pick<Repository, 'owner_id' | 'private'>, caller: Caller | null, collaborator: CollaboratorPermission | null): Permission {
  if (caller?.is_admin) return 'admin';
  if (caller?.user_id && caller.user_id === repo.owner_id) return 'admin';
  if (collaborator === 'write') return 'write';
  if (collaborator === 'read' || !repo.private) return 'read';
  return 'none';
}
