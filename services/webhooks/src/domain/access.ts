import { canWrite, isRepoVisible, type RepoContext } from '@githost/identity';
import { notFound, unauthenticated, validation } from '@githost/errors';

/** Who asks, about which repository, as the gateway signed it. */
export interface Requester {
  /** null when anonymous. */
  username: string | null;
  repo: RepoContext | null;
  requestId?: string;
}

/**
 * seed §4 webhooks rule 1 and §7: every webhook endpoint needs an authenticated user with write
 * access, and a failed write check is a validation error `Write access required`. A private
 * repository the caller cannot read answers as if it did not exist (CONTRACT §3, §9).
 */
export function requireWritableRepo(who: Requester): RepoContext {
  if (who.username === null) throw unauthenticated();
  const repo = who.repo;
  if (!isRepoVisible(repo)) throw notFound('Repository not found');
  if (!canWrite(repo.permission)) throw validation('Write access required');
  return repo;
}
