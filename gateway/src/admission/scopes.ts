import { forbidden } from '@githost/errors';
import type { Permission, RepoContext } from '@githost/identity';
import type { Authentication } from '../clients/accounts.js';
import type { RouteMatch } from './routes.js';
import type { Denial } from './access.js';

const READ_METHODS = new Set(['GET', 'HEAD']);

export const READ_SCOPE_ONLY = 'This token has only the "read" scope: it can clone and browse, not push or change anything';

/**
 * services/accounts/README.md#token-scopes, enforced here and nowhere else: a token without the `write`
 * scope may only read, so any API request that is not GET or HEAD, and any git push, is refused
 * before anything is looked up. (Site-admin powers need the `admin` scope: the principal's
 * `is_admin` already says so, see clients/accounts.ts.)
 */
export function denyScope(route: RouteMatch, method: string, authentication: Authentication | null): Denial | undefined {
  if (!authentication || authentication.scopes.includes('write')) return undefined;
  const writes = route.surface === 'git' ? route.push === true : !READ_METHODS.has(method);
  return writes ? { error: forbidden(READ_SCOPE_ONLY), challenge: false } : undefined;
}

/** The permission the gateway signs: at most `read` for a token without the `write` scope, so no
 *  service grants such a token more, whatever it checks. */
export function capPermission(repo: RepoContext, authentication: Authentication | null): RepoContext {
  if (!authentication) return repo;
  let capped: Permission = repo.permission;
  if (!authentication.scopes.includes('write') && capped !== 'none') capped = 'read';
  const ceiling = authentication.maxPermission;
  if (ceiling && RANK[capped] > RANK[ceiling]) capped = ceiling;
  return capped === repo.permission ? repo : { ...repo, permission: capped };
}

const RANK: Record<Permission, number> = { none: 0, read: 1, write: 2, admin: 3 };
