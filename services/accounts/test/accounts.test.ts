import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rpc } from './rpc.js';
import { ADMIN_TOKEN, Client, PUBLIC_URL, SECRET, startAccounts, type Backend, type Harness } from './harness.js';
import { git, startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { openAccountsDatabase } from '../src/db/open.js';
import { pgliteDir } from '../src/config.js';
import { MIGRATIONS } from '../src/db/migrations.js';
import { createServer } from '../src/server.js';

describe.each<Backend>(['postgres', 'pglite'])('accounts on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;
  let anonymous: Client;
  let alice: Client;
  let bob: Client;
  let aliceId: string;
  const issued: string[] = [];

  /** The bare repository git-storage made for this id, read with git itself. */
  async function headOf(repositoryId: string): Promise<string> {
    return (await git(storage.repoPath(repositoryId), 'symbolic-ref', 'HEAD')).trim();
  }

  async function createUser(username: string, isAdmin = false): Promise<{ id: string; client: Client }> {
    const created = await admin.createUser(username, isAdmin);
    issued.push(created.client.token!);
    return created;
  }

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
    anonymous = new Client(h, null);
    const a = await createUser('alice');
    aliceId = a.id;
    alice = a.client;
    bob = (await createUser('bob')).client;
  });

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  describe('users and tokens', () => {
    it('when the bootstrap admin creates a user, then it answers 201 with the record', async () => {
      const res = await admin.request('POST', '/api/admin/users', { username: 'Carol', email: 'carol@example.test' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: expect.any(String), username: 'Carol', email: 'carol@example.test', is_admin: false, created_at: expect.any(String) });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    });

    it('when the username exists in another letter case, then it answers 409 Username already taken', async () => {
      const res = await admin.request('POST', '/api/admin/users', { username: 'ALICE', email: 'a2@example.test' });
      expect(res).toEqual({ status: 409, body: { error: 'Username already taken' } });
    });

    it('when a non-admin calls the admin endpoints, then both answer 403 Forbidden', async () => {
      expect(await alice.request('POST', '/api/admin/users', { username: 'mallory', email: 'm@example.test' })).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect(await alice.request('POST', '/api/admin/users/bob/tokens', {})).toEqual({ status: 403, body: { error: 'Forbidden' } });
    });

    it('when an anonymous caller uses a required-auth endpoint, then it answers 401 Authentication required', async () => {
      expect(await anonymous.request('GET', '/api/user')).toEqual({ status: 401, body: { error: 'Authentication required' } });
      expect(await anonymous.request('POST', '/api/repos', { name: 'x' })).toEqual({ status: 401, body: { error: 'Authentication required' } });
    });

    it('when the admin issues a token for an unknown user, then it answers 404 User not found', async () => {
      expect(await admin.request('POST', '/api/admin/users/nobody/tokens', {})).toEqual({ status: 404, body: { error: 'User not found' } });
    });

    it.each([
      [{ username: '', email: 'x@example.test' }, 'username is required'],
      [{ username: '.hidden', email: 'x@example.test' }, "Username must not start with '.' or '-'"],
      [{ username: '-opt', email: 'x@example.test' }, "Username must not start with '.' or '-'"],
      [{ username: 'repo.git', email: 'x@example.test' }, "Username must not end in '.git'"],
      [{ username: 'a b', email: 'x@example.test' }, "Username may contain only letters, digits, '-', '_' and '.'"],
      [{ username: 'a'.repeat(101), email: 'x@example.test' }, 'Username must be at most 100 characters'],
      [{ username: 'dave' }, 'email is required'],
      [{ username: 'dave', email: 'not-an-address' }, 'email must look like an address (name@example.com)'],
      [{ username: 'dave', email: 'd@example.test', is_admin: 'yes' }, 'is_admin must be true or false'],
    ])('when a user is created with %j, then it answers 400 %s', async (body, message) => {
      expect(await admin.request('POST', '/api/admin/users', body)).toEqual({ status: 400, body: { error: message } });
    });

    it('when a token is issued, then Authenticate resolves it to its user and GET /api/user shows the user', async () => {
      const res = await rpc(h.grpc).authenticate({ token: alice.token! });
      expect(res.bootstrap_admin).toBe(false);
      expect(res.user).toEqual({ id: aliceId, username: 'alice', email: 'alice@example.test', is_admin: false });
      expect(await alice.request('GET', '/api/user')).toEqual({ status: 200, body: { id: aliceId, username: 'alice', email: 'alice@example.test', is_admin: false } });
    });

    it('when the bootstrap admin token is presented, then Authenticate answers bootstrap_admin with no user', async () => {
      const res = await rpc(h.grpc).authenticate({ token: ADMIN_TOKEN });
      expect(res).toEqual({ user: null, bootstrap_admin: true, scopes: ['read', 'write', 'admin'], expires_at: '', session_id: '' });
    });

    it('when an unknown token is presented, then Authenticate fails with Authentication required', async () => {
      await expect(rpc(h.grpc).authenticate({ token: 'ghs_unknown' })).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Authentication required' });
      await expect(rpc(h.grpc).authenticate({ token: '' })).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Authentication required' });
    });

    it('when a user creates and revokes a token of their own, then the revoked token no longer authenticates', async () => {
      const created = await alice.request('POST', '/api/user/tokens', { name: 'laptop' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ id: expect.any(String), name: 'laptop', token: expect.stringMatching(/^ghs_[A-Za-z0-9_-]{43}$/), scopes: ['read', 'write'], expires_at: null, created_at: expect.any(String) });
      issued.push(created.body.token);
      const laptop = new Client(h, created.body.token);
      expect((await laptop.request('GET', '/api/user')).body.username).toBe('alice');

      const listed = await alice.request('GET', '/api/user/tokens');
      expect(listed.body.map((t: { name: string }) => t.name)).toEqual(['test', 'laptop']);
      expect(listed.body[1]).not.toHaveProperty('token');
      expect(listed.body[1].last_used_at).toEqual(expect.any(String));

      expect(await bob.request('DELETE', `/api/user/tokens/${created.body.id}`)).toEqual({ status: 404, body: { error: 'Token not found' } });
      expect((await alice.request('DELETE', `/api/user/tokens/${created.body.id}`)).status).toBe(204);
      await expect(rpc(h.grpc).authenticate({ token: created.body.token })).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Authentication required' });
      expect(await alice.request('DELETE', `/api/user/tokens/${created.body.id}`)).toEqual({ status: 404, body: { error: 'Token not found' } });
    });

    it('when the bootstrap admin asks for its own token, then it is told to create a user', async () => {
      const res = await admin.request('POST', '/api/user/tokens', {});
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/bootstrap admin has no user record/);
    });

    it('when the same username is created twice at once, then exactly one succeeds and the other is 409', async () => {
      const both = await Promise.all([
        admin.request('POST', '/api/admin/users', { username: 'twin', email: 'twin1@example.test' }),
        admin.request('POST', '/api/admin/users', { username: 'TWIN', email: 'twin2@example.test' }),
      ]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    });

    it('when GetUsers is asked for known and unknown ids, then the unknown ones are left out', async () => {
      const res = await rpc(h.grpc).getUsers({ ids: [aliceId, 'no-such-id', aliceId, ''] });
      expect(res.users).toEqual([{ id: aliceId, username: 'alice', email: 'alice@example.test', is_admin: false }]);
    });
  });

  describe('operations', () => {
    it('when health, readiness and metrics are asked for, then they answer without an identity, metrics on the metrics port only', async () => {
      expect((await fetch(`${h.base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${h.base}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
      await rpc(h.grpc).authenticate({ token: 'ghs_wrong' }).catch(() => undefined);
      const metrics = await (await fetch(h.metricsUrl)).text();
      expect(metrics).toMatch(/githost_accounts_authentications_total\{result="rejected",service="accounts"\} [1-9]/);
      expect(metrics).toMatch(/githost_accounts_authentications_total\{result="user",service="accounts"\} [1-9]/);
      expect((await fetch(`${h.base}/metrics`)).status).toBe(401); // not served on the HTTP port: an unknown route behind the identity check
    });
  });

  describe('requests without a valid gateway identity', () => {
    it('when the identity header is missing, then it answers 401', async () => {
      const res = await fetch(`${h.base}/api/user`);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Missing internal identity' });
    });

    it('when the body is not JSON, then it answers 400 Invalid JSON body', async () => {
      expect(await alice.request('POST', '/api/repos', '{"name":')).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
    });
  });

  describe('repositories', () => {
    it('when a user creates a repository, then git-storage creates it and the answer carries clone_url', async () => {
      const res = await alice.request('POST', '/api/repos', { name: 'demo', description: 'first' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        owner: 'alice',
        name: 'demo',
        full_name: 'alice/demo',
        private: false,
        default_branch: 'main',
        description: 'first',
        allow_tag_changes: false,
        clone_url: `${PUBLIC_URL}/alice/demo.git`,
        created_at: expect.any(String),
      });
      expect(await headOf(res.body.id)).toBe('refs/heads/main');
      const got = await rpc(h.grpc).getRepository({ id: res.body.id });
      expect(got.repository).toEqual({ id: res.body.id, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', description: 'first', owner_id: aliceId, created_at: res.body.created_at });
    });

    it('when the name exists in another letter case, then it answers 409 Repository already exists', async () => {
      await alice.request('POST', '/api/repos', { name: 'dup' });
      expect(await alice.request('POST', '/api/repos', { name: 'DUP' })).toEqual({ status: 409, body: { error: 'Repository already exists' } });
    });

    it('when the same repository is created twice at once, then exactly one succeeds and one bare repository exists', async () => {
      const both = await Promise.all([alice.request('POST', '/api/repos', { name: 'race' }), alice.request('POST', '/api/repos', { name: 'Race' })]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      const winner = both.find((r) => r.status === 201)!;
      expect(await headOf(winner.body.id)).toBe('refs/heads/main');
    });

    it.each([
      [{}, 'name is required'],
      [{ name: 'x.git' }, "Repository name must not end in '.git'"],
      [{ name: '.dot' }, "Repository name must not start with '.' or '-'"],
      [{ name: '../etc' }, "Repository name may contain only letters, digits, '-', '_' and '.'"],
      [{ name: 'r'.repeat(101) }, 'Repository name must be at most 100 characters'],
      [{ name: 'ok', private: 'no' }, 'private must be true or false'],
      [{ name: 'ok', default_branch: '--upload-pack=x' }, "default_branch is not a valid branch name: it starts with '-'"],
      [{ name: 'ok', default_branch: 'a..b' }, "default_branch is not a valid branch name: it contains '..', '@{' or '//'"],
    ])('when a repository is created with %j, then it answers 400 %s', async (body, message) => {
      expect(await alice.request('POST', '/api/repos', body)).toEqual({ status: 400, body: { error: message } });
    });

    it('when a non-admin names another owner, then it answers 403 Forbidden', async () => {
      expect(await alice.request('POST', '/api/repos', { name: 'theirs', owner: 'bob' })).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect(await alice.request('POST', '/api/repos', { name: 'theirs', owner: 'nobody' })).toEqual({ status: 403, body: { error: 'Forbidden' } });
    });

    it('when the bootstrap admin creates a repository, then it must name an existing owner', async () => {
      const missing = await admin.request('POST', '/api/repos', { name: 'boot' });
      expect(missing.status).toBe(400);
      expect(missing.body.error).toMatch(/^owner is required/);
      expect(await admin.request('POST', '/api/repos', { name: 'boot', owner: 'nobody' })).toEqual({ status: 404, body: { error: 'User not found' } });
      const res = await admin.request('POST', '/api/repos', { name: 'boot', owner: 'BOB', private: true, default_branch: 'trunk' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ owner: 'bob', name: 'boot', full_name: 'bob/boot', private: true, default_branch: 'trunk' });
      expect(await headOf(res.body.id)).toBe('refs/heads/trunk');
    });
  });

  describe('access', () => {
    let publicRepoId: string;

    beforeAll(async () => {
      await createUser('reader');
      await createUser('writer');
      await createUser('stranger');
      await createUser('siteadmin', true);
      publicRepoId = (await alice.request('POST', '/api/repos', { name: 'open' })).body.id;
      expect((await alice.request('POST', '/api/repos', { name: 'secret', private: true })).status).toBe(201);
      expect((await alice.request('PUT', '/api/repos/alice/secret/collaborators/reader', { permission: 'read' })).status).toBe(204);
      expect((await alice.request('PUT', '/api/repos/alice/secret/collaborators/writer', { permission: 'write' })).status).toBe(204);
    });

    async function permissionOf(username: string | null, repo: string, bootstrap = false): Promise<string> {
      const id = username ? await idOf(username) : '';
      const res = await rpc(h.grpc).authorize({ user_id: id, bootstrap_admin: bootstrap, owner: 'alice', name: repo });
      return res.permission;
    }

    async function idOf(username: string): Promise<string> {
      const res = await admin.request('POST', `/api/admin/users/${username}/tokens`, { name: 'lookup' });
      const who = await rpc(h.grpc).authenticate({ token: res.body.token });
      return who.user!.id;
    }

    it.each([
      ['alice', 'secret', 'admin'],
      ['siteadmin', 'secret', 'admin'],
      ['writer', 'secret', 'write'],
      ['reader', 'secret', 'read'],
      ['stranger', 'secret', 'none'],
      [null, 'secret', 'none'],
      ['stranger', 'open', 'read'],
      [null, 'open', 'read'],
      ['alice', 'open', 'admin'],
    ])('when %s asks for alice/%s, then Authorize answers %s', async (username, repo, permission) => {
      expect(await permissionOf(username, repo)).toBe(permission);
    });

    it('when the user id matches no user, then Authorize treats the caller as anonymous', async () => {
      expect((await rpc(h.grpc).authorize({ user_id: 'made-up', bootstrap_admin: false, owner: 'alice', name: 'secret' })).permission).toBe('none');
      expect((await rpc(h.grpc).authorize({ user_id: 'made-up', bootstrap_admin: false, owner: 'alice', name: 'open' })).permission).toBe('read');
    });

    it('when the bootstrap admin asks, then Authorize answers admin', async () => {
      expect(await permissionOf(null, 'secret', true)).toBe('admin');
    });

    it('when owner and name differ in letter case, then Authorize still finds the repository', async () => {
      const res = await rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: false, owner: 'ALICE', name: 'OPEN' });
      expect(res.repository).toMatchObject({ id: publicRepoId, owner: 'alice', name: 'open' });
    });

    it('when the repository does not exist, then Authorize and GetRepository fail with Repository not found', async () => {
      await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: false, owner: 'alice', name: 'nope' })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
      await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: false, owner: '--help', name: '..' })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
      await expect(rpc(h.grpc).getRepository({ id: 'nope' })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
    });

    it('when anonymous callers read repositories, then the public one is shown and the private one is 404', async () => {
      expect((await anonymous.request('GET', '/api/repos/alice/open')).body).toMatchObject({ id: publicRepoId, full_name: 'alice/open' });
      expect(await anonymous.request('GET', '/api/repos/alice/secret')).toEqual({ status: 404, body: { error: 'Repository not found' } });
      expect(await anonymous.request('GET', '/api/repos/alice/missing')).toEqual({ status: 404, body: { error: 'Repository not found' } });
    });

    it('when a collaborator who can read manages collaborators, then it answers 403 Forbidden', async () => {
      const writer = new Client(h, await tokenFor('writer'));
      expect(await writer.request('PUT', '/api/repos/alice/secret/collaborators/stranger', { permission: 'read' })).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect(await writer.request('DELETE', '/api/repos/alice/secret/collaborators/reader')).toEqual({ status: 403, body: { error: 'Forbidden' } });
    });

    it('when a stranger manages collaborators of a private repository, then it answers 404 as if it did not exist', async () => {
      const stranger = new Client(h, await tokenFor('stranger'));
      expect(await stranger.request('PUT', '/api/repos/alice/secret/collaborators/stranger', { permission: 'write' })).toEqual({ status: 404, body: { error: 'Repository not found' } });
    });

    it('when the owner names an unknown user or a bad permission, then it answers 404 or 400', async () => {
      expect(await alice.request('PUT', '/api/repos/alice/secret/collaborators/nobody', { permission: 'read' })).toEqual({ status: 404, body: { error: 'User not found' } });
      expect(await alice.request('DELETE', '/api/repos/alice/secret/collaborators/nobody')).toEqual({ status: 404, body: { error: 'User not found' } });
      expect(await alice.request('PUT', '/api/repos/alice/secret/collaborators/stranger', { permission: 'admin' })).toEqual({ status: 400, body: { error: 'permission must be "read" or "write"' } });
    });

    it('when the owner removes a collaborator, then that user loses access', async () => {
      expect((await alice.request('PUT', '/api/repos/alice/secret/collaborators/stranger', { permission: 'write' })).status).toBe(204);
      expect(await permissionOf('stranger', 'secret')).toBe('write');
      expect((await alice.request('PUT', '/api/repos/alice/secret/collaborators/stranger', { permission: 'read' })).status).toBe(204);
      expect(await permissionOf('stranger', 'secret')).toBe('read');
      expect((await alice.request('DELETE', '/api/repos/alice/secret/collaborators/stranger')).status).toBe(204);
      expect(await permissionOf('stranger', 'secret')).toBe('none');
    });

    async function tokenFor(username: string): Promise<string> {
      const res = await admin.request('POST', `/api/admin/users/${username}/tokens`, {});
      issued.push(res.body.token);
      return res.body.token;
    }
  });

  describe('storage of secrets', () => {
    it('when the service stops and starts again, then the database holds only token hashes and tokens still work', async () => {
      await h.service.stop();
      const db = await openAccountsDatabase({ url: h.databaseUrl, pgliteDir: pgliteDir(h.config) });
      try {
        const { rows } = await db.query<{ token_hash: string }>('SELECT * FROM tokens');
        expect(rows.length).toBeGreaterThanOrEqual(issued.length);
        const dump = JSON.stringify(rows);
        for (const token of issued) expect(dump).not.toContain(token);
        for (const row of rows) expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
        const applied = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
        expect(applied.rows.map((r) => Number(r.version)).sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
      } finally {
        await db.close();
      }
      const again = createServer(h.config);
      const { grpcPort } = await again.start();
      h.service = again;
      const { createAccountsClient } = await import('@githost/protos');
      const client = createAccountsClient(`127.0.0.1:${grpcPort}`, SECRET);
      try {
        const res = await rpc(client).authenticate({ token: issued[0]! });
        expect(res.user?.username).toBe('alice');
      } finally {
        client.close();
      }
    });
  });
});
