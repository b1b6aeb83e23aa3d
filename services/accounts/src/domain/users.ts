import { randomUUID } from 'node:crypto';
import { forbidden, notFound } from '@githost/errors';
import type { AccountsDeps } from './deps.js';
import type { Caller, User } from './types.js';
import type { CreateUserInput } from './input.js';
import type { Page, Paged } from './paging.js';

/** CONTRACT §9 Access: admin endpoints answer 403 `Forbidden` to anyone but a site admin. */
export function requireSiteAdmin(caller: Caller): void {
  if (!caller.is_admin) throw forbidden();
}

type UserDeps = Pick<AccountsDeps, 'users'>;

/** `passwordHash`: the hash of the optional initial password (services/accounts/README.md#sessions). */
export async function createUser(deps: UserDeps, caller: Caller, input: CreateUserInput, passwordHash?: string): Promise<User> {
  requireSiteAdmin(caller);
  return deps.users.insert({ id: randomUUID(), ...input }, passwordHash);
}

export async function userByUsername(deps: UserDeps, username: string): Promise<User> {
  const user = await deps.users.byUsername(username);
  if (!user) throw notFound('User not found');
  return user;
}

/** GET /api/users: the users others may find (not suspended), by username. */
export function exploreUsers(deps: UserDeps, nameContains: string | undefined, page: Page): Promise<Paged<User>> {
  return deps.users.listActive(nameContains, page);
}

export async function userById(deps: UserDeps, id: string): Promise<User | null> {
  return (await deps.users.byIds([id]))[0] ?? null;
}

/** Unknown ids are left out (accounts.proto GetUsers). */
export function usersByIds(deps: UserDeps, ids: string[]): Promise<User[]> {
  return findUsers(deps, ids, []);
}

/** Users with any of these ids or usernames (usernames matched exactly, as accounts.proto
 *  GetUsers says), each once. */
export function findUsers(deps: UserDeps, ids: string[], usernames: string[]): Promise<User[]> {
  if (ids.length === 0 && usernames.length === 0) return Promise.resolve([]);
  return deps.users.find([...new Set(ids)], [...new Set(usernames)]);
}
