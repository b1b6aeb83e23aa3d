import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { RULE_DEFAULTS } from '@githost/ref-policy';
import { ADMIN_TOKEN, Client, SECRET, startAccounts, type Backend, type Harness } from './harness.js';
import { refPolicyOf, rpc } from './rpc.js';

/** docs/decisions/branch-protection.md: the rules' REST endpoints and GetRefPolicy, on the real service. */
describe.each<Backend>(['postgres', 'pglite'])('branch protections on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;
  let owner: Client;
  let writer: Client;
  let reader: Client;
  let stranger: Client;
  let repoId: string;
  let secretId: string;

  async function user(username: string): Promise<Client> {
    expect((await admin.request('POST', '/api/admin/users', { username, email: `${username}@example.test` })).status).toBe(201);
    return new Client(h, (await admin.request('POST', `/api/admin/users/${username}/tokens`, {})).body.token);
  }

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
    owner = await user('olive');
    writer = await user('walt');
    reader = await user('rita');
    stranger = await user('sam');
    repoId = (await owner.request('POST', '/api/repos', { name: 'guarded' })).body.id;
    secretId = (await owner.request('POST', '/api/repos', { name: 'secret', private: true })).body.id;
    expect((await owner.request('PUT', '/api/repos/olive/guarded/collaborators/walt', { permission: 'write' })).status).toBe(204);
    expect((await owner.request('PUT', '/api/repos/olive/guarded/collaborators/rita', { permission: 'read' })).status).toBe(204);
    expect((await owner.request('PUT', '/api/repos/olive/secret/collaborators/rita', { permission: 'read' })).status).toBe(204);
    // Two repositories, four users and their tokens: generous for a loaded machine.
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when the owner creates a rule, then 201 with defaults filled in; the same PUT again answers 200 and replaces it', async () => {
    const created = await owner.request('PUT', '/api/repos/olive/guarded/branch-protections/main', { required_approvals: 1, required_status_checks: ['ci/build'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ pattern: 'main', ...RULE_DEFAULTS, required_approvals: 1, required_status_checks: ['ci/build'], created_at: expect.any(String), updated_at: expect.any(String) });
    const replaced = await owner.request('PUT', '/api/repos/olive/guarded/branch-protections/main', { allow_force_pushes: true });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ pattern: 'main', ...RULE_DEFAULTS, allow_force_pushes: true, created_at: created.body.created_at, updated_at: expect.any(String) });
  });

  it('when the pattern has a slash, then raw and percent-encoded paths name the same rule', async () => {
    const put = await owner.request('PUT', '/api/repos/olive/guarded/branch-protections/release/*', { push: 'admin' });
    expect([put.status, put.body.pattern]).toEqual([201, 'release/*']);
    const encoded = await reader.request('GET', '/api/repos/olive/guarded/branch-protections/release%2F*');
    expect([encoded.status, encoded.body.push]).toEqual([200, 'admin']);
    expect((await owner.request('PUT', '/api/repos/olive/guarded/branch-protections/release%2F%2A', { push: 'nobody' })).status).toBe(200);
    expect((await writer.request('GET', '/api/repos/olive/guarded/branch-protections/release/*')).body.push).toBe('nobody');
  });

  it('when anyone who can read lists the rules, then they come in pattern order', async () => {
    const list = await reader.request('GET', '/api/repos/olive/guarded/branch-protections');
    expect(list.status).toBe(200);
    expect(list.body.map((r: { pattern: string }) => r.pattern)).toEqual(['main', 'release/*']);
  });

  it('when GetRefPolicy is asked, then it carries the default branch, the tag setting and every rule', async () => {
    const policy = await refPolicyOf(h.grpc, repoId);
    expect(policy).toEqual({
      default_branch: 'main',
      allow_tag_changes: false,
      protections: [
        { pattern: 'main', ...RULE_DEFAULTS, allow_force_pushes: true },
        { pattern: 'release/*', ...RULE_DEFAULTS, push: 'nobody' },
      ],
    });
    expect(await refPolicyOf(h.grpc, secretId)).toEqual({ default_branch: 'main', allow_tag_changes: false, protections: [] });
    await expect(refPolicyOf(h.grpc, 'no-such-repository')).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });

  it.each([
    ['a..b', {}, 'Invalid branch pattern: "a..b" (a branch name, * and ** allowed)'],
    ['refs%2Fheads%2Fmain', {}, 'Invalid branch pattern: "refs/heads/main" (a branch name, * and ** allowed)'],
    ['%E0%A4%A', {}, 'Invalid branch pattern: "%E0%A4%A" (a branch name, * and ** allowed)'],
    ['dev', { push: 'maintainers' }, 'push must be "write", "admin" or "nobody"'],
    ['dev', { required_approvals: 11 }, 'required_approvals must be an integer from 0 to 10'],
    ['dev', { allow_deletions: 'no' }, 'allow_deletions must be true or false'],
    ['dev', { required_status_checks: ['ok', ''] }, 'required_status_checks must be an array of non-empty strings of at most 255 characters'],
  ])('when the owner puts %s with %j, then 400 %s and nothing is stored', async (pattern, body, message) => {
    expect(await owner.request('PUT', `/api/repos/olive/guarded/branch-protections/${pattern}`, body)).toEqual({ status: 400, body: { error: message } });
    expect((await owner.request('GET', '/api/repos/olive/guarded/branch-protections')).body).toHaveLength(2);
  });

  it('when a writer or reader manages rules, then 403 Forbidden; a stranger on a private repository gets 404', async () => {
    expect(await writer.request('PUT', '/api/repos/olive/guarded/branch-protections/dev', {})).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await reader.request('DELETE', '/api/repos/olive/guarded/branch-protections/main')).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await reader.request('PUT', '/api/repos/olive/secret/branch-protections/dev', {})).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await stranger.request('GET', '/api/repos/olive/secret/branch-protections')).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect(await stranger.request('PUT', '/api/repos/olive/secret/branch-protections/dev', {})).toEqual({ status: 404, body: { error: 'Repository not found' } });
    expect((await stranger.request('GET', '/api/repos/olive/guarded/branch-protections')).status).toBe(200);
  });

  it('when a site admin manages rules of a repository it does not own, then it may', async () => {
    expect((await admin.request('PUT', '/api/repos/olive/secret/branch-protections/dev', { allow_deletions: true })).status).toBe(201);
    expect((await admin.request('DELETE', '/api/repos/olive/secret/branch-protections/dev')).status).toBe(204);
  });

  it('when a rule is deleted, then 204, it is gone, and deleting it again is 404 naming the pattern', async () => {
    expect((await owner.request('DELETE', '/api/repos/olive/guarded/branch-protections/release%2F*')).status).toBe(204);
    expect(await owner.request('GET', '/api/repos/olive/guarded/branch-protections/release/*')).toEqual({ status: 404, body: { error: 'Branch protection not found: release/*' } });
    expect(await owner.request('DELETE', '/api/repos/olive/guarded/branch-protections/release/*')).toEqual({ status: 404, body: { error: 'Branch protection not found: release/*' } });
    expect((await refPolicyOf(h.grpc, repoId)).protections.map((p) => p.pattern)).toEqual(['main']);
  });

  it('when an anonymous caller reaches the endpoints, then 401', async () => {
    const anonymous = new Client(h, null);
    expect(await anonymous.request('GET', '/api/repos/olive/guarded/branch-protections')).toEqual({ status: 401, body: { error: 'Authentication required' } });
  });

  it('when GetUsers names users by id and by username, then each is returned once and unknown ones are left out', async () => {
    const walt = (await rpc(h.grpc).getUsers({ usernames: ['walt'] })).users;
    expect(walt.map((u) => u.username)).toEqual(['walt']);
    const res = await rpc(h.grpc).getUsers({ ids: [walt[0]!.id], usernames: ['walt', 'rita', 'RITA', 'nobody', ''] });
    expect(res.users.map((u) => u.username)).toEqual(['rita', 'walt']);
  });
});
