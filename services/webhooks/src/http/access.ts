import type { Response } from '@githost/http';
import { identityOf } from '@githost/http';
import { canRead, canWrite, type RepoContext } from '@githost/identity';
import { notFound, unauthenticated, validation } from '@githost/errors';

/**
 * seed §4 webhooks rule 1 and §7: every webhook endpoint needs an authenticated user with write
 * access, and a failed write check is a validation error `Write access required`. A private
 * repository the caller cannot read answers as if it did not exist (CONTRACT §3, §9).
 */
export function requireWritableRepo(res: Response): RepoContext {
  const identity = identityOf(res);
  if (!identity.principal) throw unauthenticated();
  const repo = identity.repo;
  if (!repo || (repo.private && !canRead(repo.permission))) throw notFound('Repository not found');
  if (!canWrite(repo.permission)) throw validation('Write access required');
  return repo;
}
