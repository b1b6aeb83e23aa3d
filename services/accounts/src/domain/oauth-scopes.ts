import type { TokenScope } from './types.js';

/**
 * The scopes an OAuth2 application may ask for (docs/decisions/oauth2-provider.md#scopes):
 * OpenID Connect's (`openid`, `profile`, `email`, `offline_access`), githost's own `read` and
 * `write`, and Gitea's names for repository access (`read:repository`, `write:repository`),
 * which mean the same. `admin` is never granted to an application.
 */
export const OAUTH_SCOPES = ['openid', 'offline_access', 'profile', 'email', 'read', 'write', 'read:repository', 'write:repository'] as const;

const WRITE = new Set(['write', 'write:repository']);
const READ = new Set(['read', 'read:repository']);

/** The githost token scopes an access token with these granted scopes carries, closed as
 *  token scopes are (write includes read); empty when it was granted sign-in only. */
export function githostScopesOf(granted: Iterable<string>): TokenScope[] {
  const scopes = [...granted];
  if (scopes.some((s) => WRITE.has(s))) return ['read', 'write'];
  if (scopes.some((s) => READ.has(s))) return ['read'];
  return [];
}
