import { randomUUID } from 'node:crypto';
import { forbidden, notFound } from '@githost/errors';
import type { UserStore } from './ports.js';
import type { Caller, User } from './types.js';
import type { CreateUserInput } from './input.js';
import type { Page, Paged } from './paging.js';

/** CONTRACT §9 Access: admin endpoints answer 403 `Forbidden` to anyone but a site admin. */
export function requireSiteAdmin(caller: Caller): void {
  if (!caller.is_admin) throw forbidden();
}

export class UserService {
  constructor(private readonly store: UserStore) {}

  /** `passwordHash`: the hash of the optional initial password (README "Sessions"). */
  async create(caller: Caller, input: CreateUserInput, passwordHash?: string): Promise<User> {
    requireSiteAdmin(caller);
    return this.store.insert({ id: randomUUID(), ...input }, passwordHash);
  }

  async byUsername(username: string): Promise<User> {
    const user = await this.store.byUsername(username);
    if (!user) throw notFound('User not found');
    return user;
  }

  /** GET /api/users: the users others may find (not suspended), by username. */
  explore(nameContains: string | undefined, page: Page): Promise<Paged<User>> {
    return this.store.listActive(nameContains, page);
  }

  async byId(id: string): Promise<User | null> {
    return (await this.store.byIds([id]))[0] ?? null;
  }

  /** Unknown ids are left out (accounts.proto GetUsers). */
  byIds(ids: string[]): Promise<User[]> {
    return this.find(ids, []);
  }

  /** Users with any of these ids or usernames (usernames matched exactly, as accounts.proto
   *  GetUsers says), each once. */
  find(ids: string[], usernames: string[]): Promise<User[]> {
    if (ids.length === 0 && usernames.length === 0) return Promise.resolve([]);
    return this.store.find([...new Set(ids)], [...new Set(usernames)]);
  }
}
