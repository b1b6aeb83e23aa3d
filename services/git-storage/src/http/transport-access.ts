import { forbidden, notFound, unauthenticated } from '@githost/errors';
import { canRead, canWrite, WRITE_REFUSED, type Identity } from '@githost/identity';

export type GitService = 'git-upload-pack' | 'git-receive-pack';

/**
 * Who may use git transport on which repository. The repository comes ONLY from the identity the
 * gateway signed; the URL's names only have to agree with it.
 */
export function authorizeTransport(identity: Identity, urlOwner: string, urlName: string, service: GitService): NonNullable<Identity['repo']> {
  return authorizeRepository(identity, urlOwner, urlName, service === 'git-receive-pack' ? 'write' : 'read');
}

/** The same rule for anything under `{owner}/{repo}.git/` (git transport, LFS): read or write. */
export function authorizeRepository(identity: Identity, urlOwner: string, urlName: string, access: 'read' | 'write'): NonNullable<Identity['repo']> {
  const repo = identity.repo;
  if (!repo || repo.owner.toLowerCase() !== urlOwner.toLowerCase() || repo.name.toLowerCase() !== urlName.toLowerCase()) {
    throw notFound('Repository not found');
  }
  if (!canRead(repo.permission)) throw notFound('Repository not found');
  if (access === 'write' && !canWrite(repo.permission)) {
    // git only sends credentials after a 401 with a challenge (CONTRACT §9 access).
    if (!identity.principal) throw unauthenticated();
    throw forbidden(WRITE_REFUSED);
  }
  return repo;
}
