import { LFS_ACTION_SCHEME, signLfsActionGrant, type Principal, type RepoContext } from '@githost/identity';
import type { LfsAuthentication, LfsOperation } from './commands/index.js';

/** How long git-lfs-authenticate's credential works; git-lfs asks again once it expired. */
export const LFS_CREDENTIAL_SECONDS = 15 * 60;

/**
 * `git-lfs-authenticate`'s answer (git-lfs docs/api/server-discovery.md#ssh): where the LFS API is
 * and a header that opens it for this repository and operation only, for 15 minutes
 * (docs/decisions/ssh-server.md#git-lfs-authenticate). The credential is an LFS grant without an
 * object, signed like the batch answer's grants, so the gateway checks it without asking anyone
 * and accounts still decides the principal's access on every call. A deploy key never gets more
 * than its key grants (`max_permission`).
 */
export function lfsAuthentication(publicUrl: string, internalSecret: string, now: () => number = Date.now) {
  return (principal: Principal, repo: RepoContext, operation: LfsOperation): LfsAuthentication => {
    const grant = signLfsActionGrant(
      {
        principal,
        repository: `${repo.owner}/${repo.name}`,
        oid: null,
        operation,
        expires_at: now() + LFS_CREDENTIAL_SECONDS * 1000,
        max_permission: repo.permission,
      },
      internalSecret,
    );
    return { href: `${publicUrl}/${repo.owner}/${repo.name}.git/info/lfs`, header: { Authorization: `${LFS_ACTION_SCHEME} ${grant}` }, expires_in: LFS_CREDENTIAL_SECONDS };
  };
}
