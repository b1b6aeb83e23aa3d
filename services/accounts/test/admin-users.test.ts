import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { rpc } from './rpc.js';
import { encodeIdentity } from '@githost/identity';
import { ADMIN_TOKEN, Client, PUBLIC_URL, SECRET, startAccounts, type Backend, type Harness } from './harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UNAUTHENTICATED = { kind: 'unauthenticated', message: 'Authentication required' };

/** services/accounts/README.md#users-and-tokens and #token-scopes, against the real service and database. */
describe.each<Backend>(['postgres', 'pglite'])('user and token administration on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;

  const createUser = (username: string, isAdmin = false) => admin.createUser(username, isAdmin);

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when a site admin lists users, then they come by username, paged, with GitHub Link headers; others get 403', async () => {
    for (const name of ['lu-c', 'lu-a', 'LU-b']) await createUser(name);
    const first = await admin.requestWithHeaders('GET', '/api/admin/users?per_page=2');
    expect(first.status).toBe(200);
    expect(first.body.map((u: { username: string }) => u.username)).toEqual(['lu-a', 'LU-b']);
    expect(first.body[0]).toEqual({ id: expect.any(String), username: 'lu-a', email: 'lu-a@example.test', is_admin: false, suspended: false, suspended_at: null, created_at: expect.any(String) });
    expect(first.headers.get('link')).toBe(`<${PUBLIC_URL}/api/admin/users?per_page=2&page=2>; rel="next", <${PUBLIC_URL}/api/admin/users?per_page=2&page=2>; rel="last"`);
    const second = await admin.requestWithHeaders('GET', '/api/admin/users?per_page=2&page=2');
    expect(second.body.map((u: { username: string }) => u.username)).toEqual(['lu-c']);
    expect(second.headers.get('link')).toBe(`<${PUBLIC_URL}/api/admin/users?per_page=2&page=1>; rel="prev", <${PUBLIC_URL}/api/admin/users?per_page=2&page=1>; rel="first"`);
    const { client: plain } = await createUser('lu-plain');
    expect(await plain.request('GET', '/api/admin/users')).toEqual({ status: 403, body: { error: 'Forbidden' } });
  });

  it('when a site admin suspends a user, then their tokens stop authenticating and Authorize refuses them; unsuspending restores both', async () => {
    const { id, client: sue } = await createUser('sue');
    expect((await sue.request('POST', '/api/repos', { name: 'sue-repo' })).status).toBe(201);
    const suspended = await admin.request('PATCH', '/api/admin/users/SUE', { suspended: true });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ username: 'sue', suspended: true, suspended_at: expect.any(String) });
    await expect(rpc(h.grpc).authenticate({ token: sue.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    await expect(rpc(h.grpc).authorize({ user_id: id, bootstrap_admin: false, owner: 'sue', name: 'sue-repo' })).rejects.toMatchObject(UNAUTHENTICATED);
    // A principal the gateway signed before the suspension resolves to no one either.
    const stale = { user_id: id, username: 'sue', email: 'sue@example.test', is_admin: false };
    const signed = { ...encodeIdentity({ principal: stale, repo: null, request_id: 'test', issued_at: Date.now() }, SECRET), 'content-type': 'application/json' };
    expect((await fetch(`${h.base}/api/user`, { headers: signed })).status).toBe(401);
    expect((await fetch(`${h.base}/api/repos`, { method: 'POST', headers: signed, body: '{"name":"late"}' })).status).toBe(401);
    // Anonymous and other callers still see the public repository.
    expect((await rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: false, owner: 'sue', name: 'sue-repo' })).permission).toBe('read');

    const again = await admin.request('PATCH', '/api/admin/users/sue', { suspended: false });
    expect(again.body).toMatchObject({ suspended: false, suspended_at: null });
    expect((await rpc(h.grpc).authenticate({ token: sue.token! })).user?.username).toBe('sue');
    expect((await rpc(h.grpc).authorize({ user_id: id, bootstrap_admin: false, owner: 'sue', name: 'sue-repo' })).permission).toBe('admin');
  });

  it('when a user is changed, then e-mail and admin flag follow; an empty or invalid body is 400, an unknown user 404, a non-admin 403', async () => {
    const { client: ed } = await createUser('ed');
    const changed = await admin.request('PATCH', '/api/admin/users/ed', { email: ' edward@example.test ', is_admin: true });
    expect(changed).toEqual({ status: 200, body: expect.objectContaining({ username: 'ed', email: 'edward@example.test', is_admin: true, suspended: false }) });
    expect(await admin.request('PATCH', '/api/admin/users/ed', {})).toEqual({ status: 400, body: { error: 'Nothing to change: give at least one of email, is_admin, suspended' } });
    expect(await admin.request('PATCH', '/api/admin/users/ed', { is_admin: 'no' })).toEqual({ status: 400, body: { error: 'is_admin must be true or false' } });
    expect(await admin.request('PATCH', '/api/admin/users/nobody', { is_admin: false })).toEqual({ status: 404, body: { error: 'User not found' } });
    expect(await admin.request('PATCH', '/api/admin/users/%ff', { is_admin: false })).toEqual({ status: 404, body: { error: 'User not found' } });
    const { client: other } = await createUser('ed-other');
    expect(await other.request('PATCH', '/api/admin/users/ed', { suspended: true })).toEqual({ status: 403, body: { error: 'Forbidden' } });
    // ed's token was issued before the promotion: it has no admin scope, so no admin powers.
    expect(await ed.request('GET', '/api/admin/users')).toEqual({ status: 403, body: { error: 'Forbidden' } });
  });

  it('when a user owns a repository, then deletion is 409; once it is gone, the user, their tokens and collaborations go', async () => {
    const { client: dee } = await createUser('dee');
    const { client: owner } = await createUser('dee-owner');
    expect((await dee.request('POST', '/api/repos', { name: 'mine' })).status).toBe(201);
    expect((await owner.request('POST', '/api/repos', { name: 'shared' })).status).toBe(201);
    expect((await owner.request('PUT', '/api/repos/dee-owner/shared/collaborators/dee', { permission: 'write' })).status).toBe(204);

    expect(await admin.request('DELETE', '/api/admin/users/dee')).toEqual({ status: 409, body: { error: 'User owns repositories' } });
    expect((await dee.request('DELETE', '/api/repos/dee/mine')).status).toBe(204);
    expect(await admin.request('DELETE', '/api/admin/users/dee')).toEqual({ status: 204, body: null });

    await expect(rpc(h.grpc).authenticate({ token: dee.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await owner.request('GET', '/api/repos/dee-owner/shared/collaborators')).body).toEqual([]);
    expect(await admin.request('DELETE', '/api/admin/users/dee')).toEqual({ status: 404, body: { error: 'User not found' } });
    // The name is free again.
    expect((await admin.request('POST', '/api/admin/users', { username: 'dee', email: 'dee2@example.test' })).status).toBe(201);
  });

  it('when a site admin lists and revokes another user\'s token, then it shows no secret and stops working', async () => {
    const { client: tom } = await createUser('tom');
    const listed = await admin.request('GET', '/api/admin/users/tom/tokens');
    expect(listed).toEqual({ status: 200, body: [{ id: expect.any(String), name: 'test', scopes: ['read', 'write'], created_at: expect.any(String), last_used_at: null, expires_at: null }] });
    const id = listed.body[0].id;
    expect(await admin.request('DELETE', `/api/admin/users/ed-other/tokens/${id}`)).toEqual({ status: 404, body: { error: 'Token not found' } });
    expect(await admin.request('DELETE', `/api/admin/users/tom/tokens/${id}`)).toEqual({ status: 204, body: null });
    await expect(rpc(h.grpc).authenticate({ token: tom.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect(await admin.request('GET', '/api/admin/users/tom/tokens')).toEqual({ status: 200, body: [] });
    expect(await admin.request('DELETE', `/api/admin/users/tom/tokens/${id}`)).toEqual({ status: 404, body: { error: 'Token not found' } });
    expect(await admin.request('DELETE', '/api/admin/users/tom/tokens/%ff')).toEqual({ status: 404, body: { error: 'Token not found' } });
    expect(await admin.request('GET', '/api/admin/users/nobody/tokens')).toEqual({ status: 404, body: { error: 'User not found' } });
  });

  it('when tokens are created with scopes and an expiry, then Authenticate reports them, the list shows them and an expired token fails', async () => {
    const { client: amy } = await createUser('amy');
    const expiresAt = new Date(Date.now() + 1_500).toISOString();
    const created = await amy.request('POST', '/api/user/tokens', { name: 'ci', scopes: ['write'], expires_at: expiresAt });
    expect(created).toEqual({ status: 201, body: { id: expect.any(String), name: 'ci', token: expect.any(String), scopes: ['read', 'write'], expires_at: expiresAt, created_at: expect.any(String) } });
    const auth = await rpc(h.grpc).authenticate({ token: created.body.token });
    expect([auth.user?.username, auth.scopes, auth.expires_at]).toEqual(['amy', ['read', 'write'], expiresAt]);

    const listed = await amy.request('GET', '/api/user/tokens');
    expect(listed.body.find((t: { name: string }) => t.name === 'ci')).toEqual({ id: created.body.id, name: 'ci', scopes: ['read', 'write'], created_at: expect.any(String), last_used_at: expect.any(String), expires_at: expiresAt });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    await sleep(1_600);
    await expect(rpc(h.grpc).authenticate({ token: created.body.token })).rejects.toMatchObject(UNAUTHENTICATED);
    // Still listed, so its owner sees that it expired.
    expect((await amy.request('GET', '/api/user/tokens')).body.map((t: { name: string }) => t.name)).toEqual(['test', 'ci']);
  });

  it('when a token asks for a scope its user lacks or a bad expiry, then 400 and no token is made', async () => {
    const { client: ann } = await createUser('ann');
    expect(await ann.request('POST', '/api/user/tokens', { scopes: ['admin'] })).toEqual({ status: 400, body: { error: 'The "admin" scope is only for site admins' } });
    expect(await admin.request('POST', '/api/admin/users/ann/tokens', { scopes: ['read', 'admin'] })).toEqual({ status: 400, body: { error: 'The "admin" scope is only for site admins' } });
    expect(await ann.request('POST', '/api/user/tokens', { scopes: 'read' })).toEqual({ status: 400, body: { error: 'scopes must be an array of "read", "write" and "admin"' } });
    expect(await ann.request('POST', '/api/user/tokens', { expires_at: '2001-01-01T00:00:00Z' })).toEqual({ status: 400, body: { error: 'expires_at must be in the future' } });
    expect(await ann.request('POST', '/api/user/tokens', { expires_at: 'next week' })).toEqual({ status: 400, body: { error: 'expires_at must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z' } });
    expect((await ann.request('GET', '/api/user/tokens')).body).toHaveLength(1);
  });

  it('when a site admin\'s token lacks the admin scope, then it has no admin powers, mints no admin token, and Authorize decides as for anyone', async () => {
    const { id, client: root } = await createUser('root', true);
    const { client: owner } = await createUser('priv-owner');
    expect((await owner.request('POST', '/api/repos', { name: 'secret', private: true })).status).toBe(201);
    expect((await rpc(h.grpc).authenticate({ token: root.token! })).scopes).toEqual(['read', 'write', 'admin']);

    const minted = await root.request('POST', '/api/user/tokens', { scopes: ['write'] });
    expect(minted.body.scopes).toEqual(['read', 'write']);
    const writeOnly = new Client(h, minted.body.token);
    expect(await writeOnly.request('GET', '/api/admin/users')).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await writeOnly.request('POST', '/api/user/tokens', { scopes: ['admin'] })).toEqual({ status: 400, body: { error: 'The "admin" scope is only for site admins' } });
    expect(await writeOnly.request('GET', '/api/repos/priv-owner/secret')).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect((await root.request('GET', '/api/repos/priv-owner/secret')).status).toBe(200);
    const scoped = await rpc(h.grpc).authorize({ user_id: id, bootstrap_admin: false, without_site_admin: true, owner: 'priv-owner', name: 'secret' });
    expect(scoped.permission).toBe('none');
  });

  it('when a site admin would suspend or delete themselves, then 400', async () => {
    const { client: self } = await createUser('selfish', true);
    expect(await self.request('PATCH', '/api/admin/users/selfish', { suspended: true })).toEqual({ status: 400, body: { error: 'You cannot suspend yourself' } });
    expect(await self.request('DELETE', '/api/admin/users/selfish')).toEqual({ status: 400, body: { error: 'You cannot delete yourself' } });
  });
});
