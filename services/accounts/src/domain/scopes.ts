import { validation } from '@githost/errors';
import type { TokenScope } from './types.js';

/**
 * services/accounts/README.md#token-scopes: `read` clones and browses; `write` also pushes, comments, merges and
 * manages what the user may manage; `admin` also carries site-admin powers. Each includes the
 * ones before it (as GitHub's `admin:org` includes `write:org`), so a token's scopes are always
 * a prefix of this list.
 */
export const TOKEN_SCOPES: readonly TokenScope[] = ['read', 'write', 'admin'];

const level = (scope: TokenScope) => TOKEN_SCOPES.indexOf(scope);

/** The scopes the given ones imply, in order: `['admin']` is all three. */
export function closeScopes(scopes: readonly TokenScope[]): TokenScope[] {
  const top = Math.max(...scopes.map(level));
  return top < 0 ? [] : TOKEN_SCOPES.slice(0, top + 1);
}

/** Everything the holder has: `admin` only for site admins. */
export function scopesOf(holder: { is_admin: boolean }): TokenScope[] {
  return holder.is_admin ? [...TOKEN_SCOPES] : ['read', 'write'];
}

/**
 * The scopes a new token gets: the requested ones closed, or all the holder has when none were
 * requested. Asking for more than the holder has is 400, never silently narrowed.
 */
export function grantScopes(holder: { is_admin: boolean }, requested: readonly TokenScope[] | undefined): TokenScope[] {
  if (requested === undefined) return scopesOf(holder);
  const scopes = closeScopes(requested);
  if (scopes.includes('admin') && !holder.is_admin) throw validation('The "admin" scope is only for site admins');
  return scopes;
}
