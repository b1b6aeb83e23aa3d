import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { offsetOf } from './paging.js';
import type { TokenRecord, TokenStore, UserStore } from './ports.js';
import type { Caller, User } from './types.js';
import { deleteUser, listUsers, listUserTokens, revokeUserToken, updateUser } from './user-admin.js';

const user = (id: string, username: string, extra: Partial<User> = {}): User => ({
  id, username, email: `${username}@example.test`, is_admin: false, suspended_at: null, created_at: '2026-01-01T00:00:00.000Z', ...extra,
});

/** In-memory users, tokens and repository owners: enough for the rules. */
function world() {
  const users = new Map<string, User>([['u1', user('u1', 'root', { is_admin: true })], ['u2', user('u2', 'bob')], ['u3', user('u3', 'carol')]]);
  const owners = new Set<string>(['u3']);
  const tokens: (TokenRecord & { revoked: boolean })[] = [
    { id: 't1', user_id: 'u2', name: 'laptop', scopes: ['read', 'write'], created_at: '2026-01-01T00:00:00.000Z', last_used_at: null, expires_at: null, revoked: false },
  ];
  const userStore: UserStore = {
    insert: async () => { throw new Error('unused'); },
    byIds: async (ids) => ids.flatMap((id) => users.get(id) ?? []),
    find: async () => [],
    byUsername: async (name) => [...users.values()].find((u) => u.username.toLowerCase() === name.toLowerCase()) ?? null,
    list: async (page) => {
      const all = [...users.values()].sort((a, b) => a.username.localeCompare(b.username));
      return { items: all.slice(offsetOf(page), offsetOf(page) + page.per_page), total: all.length };
    },
    listActive: async () => { throw new Error('unused'); },
    update: async (id, changes) => {
      const u = users.get(id);
      if (!u) return null;
      const next = { ...u, ...(changes.email !== undefined && { email: changes.email }), ...(changes.is_admin !== undefined && { is_admin: changes.is_admin }) };
      if (changes.suspended !== undefined) next.suspended_at = changes.suspended ? (u.suspended_at ?? '2026-06-01T00:00:00.000Z') : null;
      users.set(id, next);
      return next;
    },
    remove: async (id) => {
      if (!users.has(id)) return 'not_found';
      if (owners.has(id)) return 'owns_repositories';
      users.delete(id);
      return 'deleted';
    },
  };
  const tokenStore: TokenStore = {
    insert: async () => { throw new Error('unused'); },
    findActive: async () => null,
    touch: async () => undefined,
    revoke: async (id, userId) => {
      const t = tokens.find((x) => x.id === id && !x.revoked && (userId === null || x.user_id === userId));
      if (t) t.revoked = true;
      return t !== undefined;
    },
    listForUser: async (userId) => tokens.filter((t) => t.user_id === userId && !t.revoked),
  };
  return { users, owners, tokens, admin: { users: userStore, tokens: tokenStore, sessions: { removeAllOf: async () => undefined } } };
}

const root: Caller = { user_id: 'u1', username: 'root', is_admin: true };
const bob: Caller = { user_id: 'u2', username: 'bob', is_admin: false };
const bootstrap: Caller = { user_id: null, username: 'admin', is_admin: true };

async function failure(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return [err.kind, err.message];
    throw err;
  }
  throw new Error('expected a failure');
}

describe('user administration', () => {
  it('when someone who is not a site admin calls any operation, then 403 Forbidden before the input is read', async () => {
    const { admin } = world();
    expect(await failure(listUsers(admin, bob, { page: 1, per_page: 30 }))).toEqual(['forbidden', 'Forbidden']);
    expect(await failure(updateUser(admin, bob, 'carol', 'not a body'))).toEqual(['forbidden', 'Forbidden']);
    expect(await failure(deleteUser(admin, bob, 'nobody'))).toEqual(['forbidden', 'Forbidden']);
    expect(await failure(listUserTokens(admin, bob, 'bob'))).toEqual(['forbidden', 'Forbidden']);
    expect(await failure(revokeUserToken(admin, bob, 'bob', 't1'))).toEqual(['forbidden', 'Forbidden']);
  });

  it('when a site admin lists users, then one page comes back with the total', async () => {
    const { admin } = world();
    const page = await listUsers(admin, root, { page: 2, per_page: 2 });
    expect([page.items.map((u) => u.username), page.total]).toEqual([['root'], 3]);
  });

  it('when a site admin suspends and unsuspends a user, then suspended_at is set and cleared', async () => {
    const { admin } = world();
    expect((await updateUser(admin, root, 'BOB', { suspended: true })).suspended_at).toBe('2026-06-01T00:00:00.000Z');
    expect(await updateUser(admin, bootstrap, 'bob', { suspended: false, email: 'b@example.test' })).toMatchObject({ suspended_at: null, email: 'b@example.test' });
  });

  it('when the body changes nothing or the user is unknown, then 400 or 404', async () => {
    const { admin } = world();
    expect(await failure(updateUser(admin, root, 'bob', {}))).toEqual(['validation', 'Nothing to change: give at least one of email, is_admin, suspended']);
    expect(await failure(updateUser(admin, root, 'bob', { suspended: 'yes' }))).toEqual(['validation', 'suspended must be true or false']);
    expect(await failure(updateUser(admin, root, 'bob', { email: 'not-an-address' }))).toEqual(['validation', 'email must look like an address (name@example.com)']);
    expect(await failure(updateUser(admin, root, 'bob', { email: 'b\u0000@example.test' }))).toEqual(['validation', 'email must look like an address (name@example.com)']);
    expect(await failure(updateUser(admin, root, 'nobody', { is_admin: true }))).toEqual(['not_found', 'User not found']);
    expect(await failure(updateUser(admin, root, 'bad\u0000name', { is_admin: true }))).toEqual(['not_found', 'User not found']);
  });

  it('when a site admin would suspend, demote or delete themselves, then 400 and nothing changes', async () => {
    const { admin, users } = world();
    expect(await failure(updateUser(admin, root, 'root', { suspended: true }))).toEqual(['validation', 'You cannot suspend yourself']);
    expect(await failure(updateUser(admin, root, 'root', { is_admin: false }))).toEqual(['validation', 'You cannot remove your own site admin rights']);
    expect(await failure(deleteUser(admin, root, 'root'))).toEqual(['validation', 'You cannot delete yourself']);
    expect(users.get('u1')).toMatchObject({ is_admin: true, suspended_at: null });
  });

  it('when the user owns repositories, then deletion is 409 User owns repositories; otherwise the user goes', async () => {
    const { admin, users } = world();
    expect(await failure(deleteUser(admin, root, 'carol'))).toEqual(['conflict', 'User owns repositories']);
    await deleteUser(admin, root, 'bob');
    expect(users.has('u2')).toBe(false);
    expect(await failure(deleteUser(admin, root, 'bob'))).toEqual(['not_found', 'User not found']);
  });

  it('when a user is deleted, then every repository\'s facts are announced (their merge requests now show a ghost); a refused deletion announces nothing', async () => {
    const { admin, users } = world();
    const announced: string[] = [];
    const deps = { ...admin, storage: { announceEverywhere: async () => void announced.push('everywhere') } as unknown as NonNullable<Parameters<typeof deleteUser>[0]['storage']> };
    expect(await failure(deleteUser(deps, root, 'carol'))).toEqual(['conflict', 'User owns repositories']);
    expect(announced).toEqual([]);
    await deleteUser(deps, root, 'bob');
    expect(users.has('u2')).toBe(false);
    expect(announced).toEqual(['everywhere']);
  });

  it('when a site admin lists and revokes a user\'s token, then it is gone; another user\'s token id is 404', async () => {
    const { admin } = world();
    expect((await listUserTokens(admin, root, 'bob')).map((t) => t.name)).toEqual(['laptop']);
    expect(await failure(revokeUserToken(admin, root, 'carol', 't1'))).toEqual(['not_found', 'Token not found']);
    expect(await failure(revokeUserToken(admin, root, 'bob', 'bad\u0000id'))).toEqual(['not_found', 'Token not found']);
    await revokeUserToken(admin, root, 'bob', 't1');
    expect(await listUserTokens(admin, root, 'bob')).toEqual([]);
    expect(await failure(revokeUserToken(admin, root, 'bob', 't1'))).toEqual(['not_found', 'Token not found']);
  });
});
