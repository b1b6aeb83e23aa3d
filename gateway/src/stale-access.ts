import type { Principal, RepoContext } from '@githost/identity';
import type { CachedAccountsGateway } from './clients/cached-accounts.js';
import type { RouteMatch } from './routes.js';

const READ_METHODS = new Set(['GET', 'HEAD']);

/**
 * What a successful answer to this request makes stale in the gateway's accounts cache, as a
 * function to run once the answer is known to be 2xx; undefined when nothing can be.
 * Accounts owns repositories, collaborators and tokens, so only its writes matter: any change
 * to a repository (a collaborator removed, visibility or default branch changed, the repository
 * deleted) drops that repository's cached Authorize answers, and revoking a token drops the
 * caller's cached Authenticate answers.
 */
export function staleAccessAfter(method: string, path: string, route: RouteMatch, principal: Principal | null, repo: RepoContext | null, cache: CachedAccountsGateway): (() => void) | undefined {
  if (route.upstream !== 'accounts' || READ_METHODS.has(method)) return undefined;
  if (repo) return () => cache.forgetRepository(repo.id);
  const userId = principal?.user_id;
  if (userId && path.startsWith('/api/user/tokens/')) return () => cache.forgetUser(userId);
  return undefined;
}
