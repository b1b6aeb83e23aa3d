import type { Principal, RepoContext } from '@githost/identity';
import type { CachedAccountsGateway } from '../clients/cached-accounts.js';
import type { RouteMatch } from './routes.js';

const READ_METHODS = new Set(['GET', 'HEAD']);
const ADMIN_USER = /^\/api\/admin\/users\/([^/]+)(?:\/|$)/;

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * What a successful answer to this request makes stale in the gateway's accounts cache, as a
 * function to run once the answer is known to be 2xx; undefined when nothing can be.
 * Accounts owns repositories, collaborators and tokens, so its writes matter, and a push (which
 * may set the default branch of an empty repository): any change
 * to a repository (a collaborator removed, visibility or default branch changed, the repository
 * deleted) drops that repository's cached Authorize answers, revoking a token drops the
 * caller's cached Authenticate answers, and a site admin's change to a user drops that user's.
 */
export function staleAccessAfter(method: string, path: string, route: RouteMatch, principal: Principal | null, repo: RepoContext | null, cache: CachedAccountsGateway): (() => void) | undefined {
  // A push into a repository without branches sets its default branch (accounts README
  // "Default branch"), which the cached answer carries to browse. An LFS write (an object, its
  // verify, a lock) changes nothing accounts answers: dropping the answers there sent every
  // object of a transfer to accounts again (docs/decisions/lfs.md#throughput).
  if (route.push && !route.lfs && repo && !READ_METHODS.has(method)) return () => cache.forgetRepository(repo.id);
  if (route.upstream !== 'accounts' || READ_METHODS.has(method)) return undefined;
  // A client revoked an OAuth2 token (docs/decisions/oauth2-provider.md#tokens): which one is in
  // the body, which the edge does not read, so every cached Authenticate answer goes (as for a
  // site admin's revocation); revocations are rare, re-asking is one call per token.
  if (route.surface === 'oauth') return path === '/login/oauth/revoke' ? () => cache.forgetAuthentications() : undefined;
  if (repo) return () => cache.forgetRepository(repo.id);
  // A site admin changed, suspended or deleted a user, or revoked one of their tokens: the
  // user's cached answers go at once rather than when they expire.
  const adminUser = ADMIN_USER.exec(path);
  const username = adminUser && decoded(adminUser[1]!);
  if (username) return () => cache.forgetUsername(username);
  const userId = principal?.user_id;
  // Signing out a session or changing the password (which ends the other sessions): the
  // caller's cached answers go, so an ended session stops working at once, not in 5 s.
  if (userId && (path.startsWith('/api/user/sessions/') || path === '/api/user/password')) return () => cache.forgetUser(userId);
  // Revoking an application's access or deleting one's application ends its OAuth2 tokens.
  if (userId && (path.startsWith('/api/user/oauth2/grants/') || path.startsWith('/api/v1/user/applications/oauth2/'))) return () => cache.forgetUser(userId);
  if (path.startsWith('/api/user/tokens/')) {
    // A site admin may revoke anyone's token here, and whose is not known at the edge.
    if (principal?.is_admin) return () => cache.forgetAuthentications();
    if (userId) return () => cache.forgetUser(userId);
  }
  return undefined;
}
