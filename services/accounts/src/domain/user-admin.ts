import { conflict, notFound, validation } from '@githost/errors';
import { parseUpdateUser } from './input.js';
import type { Page, Paged } from './paging.js';
import type { AccountsDeps } from './deps.js';
import type { SessionStore, TokenRecord } from './ports.js';
import { endAllSessions } from './sessions.js';
import type { Caller, User } from './types.js';
import { requireSiteAdmin } from './users.js';

const NAME_SHAPE = /^[A-Za-z0-9._-]{1,100}$/;
const TOKEN_ID_SHAPE = /^[0-9A-Za-z-]{1,64}$/;

/*
 * services/accounts/README.md#users-and-tokens, site-admin side: list, change, suspend and delete users, list and
 * revoke anyone's tokens. Every operation answers 403 `Forbidden` to anyone else before reading
 * its input (CONTRACT §9 Access).
 */

export async function listUsers(deps: Pick<AccountsDeps, 'users'>, caller: Caller, page: Page): Promise<Paged<User>> {
  requireSiteAdmin(caller);
  return deps.users.list(page);
}

/** A site admin cannot suspend or demote themselves: the last admin would lock everyone out. */
export async function updateUser(deps: Pick<AccountsDeps, 'users'> & { sessions: Pick<SessionStore, 'removeAllOf'> }, caller: Caller, username: string, body: unknown): Promise<User> {
  requireSiteAdmin(caller);
  const changes = parseUpdateUser(body);
  const user = await existing(deps, username);
  if (user.id === caller.user_id && changes.suspended === true) throw validation('You cannot suspend yourself');
  if (user.id === caller.user_id && changes.is_admin === false) throw validation('You cannot remove your own site admin rights');
  const updated = await deps.users.update(user.id, changes);
  if (!updated) throw notFound('User not found');
  // A suspended user's sessions stop authenticating at once anyway (the lookup checks
  // suspension); ending them means unsuspending does not bring them back.
  if (changes.suspended === true) await endAllSessions(deps, user.id);
  return updated;
}

/** GitHub's rule: a user who owns repositories cannot be deleted until they are moved or deleted. */
export async function deleteUser(deps: Pick<AccountsDeps, 'users'> & Partial<Pick<AccountsDeps, 'storage'>>, caller: Caller, username: string): Promise<void> {
  requireSiteAdmin(caller);
  const user = await existing(deps, username);
  if (user.id === caller.user_id) throw validation('You cannot delete yourself');
  const result = await deps.users.remove(user.id);
  if (result === 'owns_repositories') throw conflict('User owns repositories');
  if (result === 'not_found') throw notFound('User not found');
  // Merge requests anywhere may show the name, now Gitea's ghost user: lists kept at the gateway's
  // edge by their facts version are all told (docs/decisions/pulls-at-the-edge.md).
  await deps.storage?.announceEverywhere?.();
}

export async function listUserTokens(deps: Pick<AccountsDeps, 'users' | 'tokens'>, caller: Caller, username: string): Promise<TokenRecord[]> {
  requireSiteAdmin(caller);
  return deps.tokens.listForUser((await existing(deps, username)).id);
}

export async function revokeUserToken(deps: Pick<AccountsDeps, 'users' | 'tokens'>, caller: Caller, username: string, tokenId: string): Promise<void> {
  requireSiteAdmin(caller);
  const user = await existing(deps, username);
  if (!TOKEN_ID_SHAPE.test(tokenId) || !(await deps.tokens.revoke(tokenId, user.id))) throw notFound('Token not found');
}

/** The user named `username`, else 404 `User not found` (a name no user can have included). */
export async function existing(deps: Pick<AccountsDeps, 'users'>, username: string): Promise<User> {
  const user = NAME_SHAPE.test(username) ? await deps.users.byUsername(username) : null;
  if (!user) throw notFound('User not found');
  return user;
}
