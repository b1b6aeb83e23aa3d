import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { addCollaborator, api, cloneUrl, createRepo, createUser, eventually, git, gitResult, makeWorkdir, pushUrl, type TestGithost, type TestUser } from '../support/index.js';
import { History } from './history.js';
import { addCastCollaborators, createCast, pushHistory, startConformanceGithost } from './setup.js';

/**
 * Seed §5 (required vs optional identity, authorization levels), §7, and CONTRACT §3/§4/§8/§9
 * (401 for an invalid credential everywhere, private repositories as 404, git transport,
 * stripped identity headers, error bodies), through the gateway.
 */
// The machine is shared; slow, not wrong, must not fail a test.
jest.setTimeout(60_000);

const T0 = 1_600_000_000;
const AUTH = { error: 'Authentication required' };
const REPO_404 = { error: 'Repository not found' };

describe('seed §5 authentication and CONTRACT §3 access, through the gateway', () => {
  let gh: TestGithost;
  let alice: TestUser; // owner of both repositories
  let bob: TestUser; // write on priv
  let carol: TestUser; // read on priv
  let dave: TestUser; // no relation
  let root: TestUser; // site admin
  let sha = '';

  /** Every public endpoint of the seed and CONTRACT §8 for one repository. */
  const endpoints = (repo: string): [string, string, unknown?][] => [
    ['GET', `/api/repos/${repo}`],
    ['GET', `/api/repos/${repo}/tree/`],
    ['GET', `/api/repos/${repo}/blob/main/a.txt`],
    ['GET', `/api/repos/${repo}/raw/main/a.txt`],
    ['GET', `/api/repos/${repo}/commits/`],
    ['GET', `/api/repos/${repo}/commit/${sha}`],
    ['GET', `/api/repos/${repo}/branches`],
    ['GET', `/api/repos/${repo}/tags`],
    ['GET', `/api/repos/${repo}/merge-requests`],
    ['GET', `/api/repos/${repo}/merge-requests/1`],
    ['GET', `/api/repos/${repo}/activity`],
    ['POST', `/api/repos/${repo}/merge-requests`, { title: 't', source_branch: 'feature', target_branch: 'main' }],
    ['POST', `/api/repos/${repo}/merge-requests/1/comments`, { body: 'hi' }],
    ['POST', `/api/repos/${repo}/merge-requests/1/merge`],
    ['GET', `/api/repos/${repo}/webhooks`],
    ['POST', `/api/repos/${repo}/webhooks`, { url: 'http://127.0.0.1:9/' }],
    ['DELETE', `/api/repos/${repo}/webhooks/x`],
  ];

  beforeAll(async () => {
    gh = await startConformanceGithost();
    ({ alice, bob, carol, dave } = await createCast(gh));
    root = await createUser(gh, 'root', { admin: true });
    for (const [name, isPrivate] of [['pub', false], ['priv', true]] as const) {
      await createRepo(gh, alice.token, name, { private: isPrivate });
      const h = new History();
      const c = h.commit({ ref: 'refs/heads/main', message: 'base\n', date: T0, files: { 'a.txt': 'a\n' } });
      h.commit({ ref: 'refs/heads/feature', from: c, message: 'feature\n', date: T0 + 1, files: { 'f.txt': 'f\n' } });
      const work = await pushHistory(gh, alice, 'alice', name, h);
      sha = await git(work, 'rev-parse', 'refs/heads/main');
      const mr = await api(gh, 'POST', `/api/repos/alice/${name}/merge-requests`, { token: alice.token, body: { title: 'first', source_branch: 'feature', target_branch: 'main' } });
      if (mr.status !== 201) throw new Error(`mr on ${name}: ${mr.status}`);
    }
    await addCastCollaborators(gh, alice, 'priv');
  }, 120_000);
  afterAll(async () => {
    await gh?.stop();
  });

  describe('credentials', () => {
    it('when a present credential is invalid, then 401 Authentication required on EVERY endpoint, optional ones included (CONTRACT §9)', async () => {
      for (const [method, path, body] of [...endpoints('alice/pub'), ['GET', '/api/user'], ['POST', '/api/repos', { name: 'x' }]] as const) {
        const res = await api(gh, method, path, { token: 'not-a-real-token', body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 401, AUTH]);
      }
    });

    it('when the credential is invalid and the repository does not exist, then 401 comes before the lookup', async () => {
      for (const [method, path, body] of endpoints('alice/nothere')) {
        const res = await api(gh, method, path, { token: 'not-a-real-token', body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 401, AUTH]);
      }
    });

    it('when the Authorization header uses an unknown scheme or an empty bearer, then 401', async () => {
      for (const authorization of ['Token abc', 'Bearer ', 'Basic bm9ib2R5Om5vdGhpbmc=']) {
        const res = await api(gh, 'GET', '/api/repos/alice/pub/branches', { headers: { authorization } });
        expect([authorization, res.status, res.body]).toEqual([authorization, 401, AUTH]);
      }
    });

    it('when no credential is sent to a required-identity endpoint, then 401 Authentication required (§5 required list)', async () => {
      const required = endpoints('alice/pub').filter(([method, path]) => method !== 'GET' || path.endsWith('/webhooks'));
      expect(required.map(([m, p]) => `${m} ${p.replace('/api/repos/alice/pub', '')}`)).toEqual([
        'POST /merge-requests', 'POST /merge-requests/1/comments', 'POST /merge-requests/1/merge', 'GET /webhooks', 'POST /webhooks', 'DELETE /webhooks/x',
      ]);
      for (const [method, path, body] of [...required, ['GET', '/api/user'], ['POST', '/api/repos', { name: 'x' }], ['POST', '/api/user/tokens', {}]] as const) {
        const res = await api(gh, method, path, { body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 401, AUTH]);
      }
    });

    it('when no credential is sent to an optional-identity endpoint of a public repository, then 200 (§5 optional; list and detail check nothing)', async () => {
      for (const [method, path] of endpoints('alice/pub').filter(([m, p]) => m === 'GET' && !p.endsWith('/webhooks'))) {
        const res = await api(gh, method, path);
        expect([method, path, res.status]).toEqual([method, path, 200]);
      }
    });

    it('when a client sends its own x-githost-* identity headers, then they are stripped and it stays anonymous (CONTRACT §3)', async () => {
      const forged = { 'x-githost-identity': Buffer.from(JSON.stringify({ principal: { kind: 'user', id: alice.id, username: 'alice' } })).toString('base64'), 'x-githost-identity-signature': 'f'.repeat(64) };
      const res = await api(gh, 'POST', '/api/repos/alice/pub/merge-requests', { headers: forged, body: { title: 't', source_branch: 'feature', target_branch: 'main' } });
      expect([res.status, res.body]).toEqual([401, AUTH]);
      const hidden = await api(gh, 'GET', '/api/repos/alice/priv/branches', { headers: forged });
      expect([hidden.status, hidden.body]).toEqual([404, { error: 'Not found' }]);
    });
  });

  describe('private repositories (CONTRACT §3, §9)', () => {
    it('when an anonymous caller reads merge requests, activity or the repository, then 404 Repository not found', async () => {
      for (const path of ['', '/merge-requests', '/merge-requests/1', '/activity']) {
        const res = await api(gh, 'GET', `/api/repos/alice/priv${path}`);
        expect([path, res.status, res.body]).toEqual([path, 404, REPO_404]);
      }
    });

    it('when a signed-in user without access calls any non-browse endpoint, then 404 Repository not found, never a 400 write message', async () => {
      for (const [method, path, body] of endpoints('alice/priv').filter(([, p]) => !/\/(tree|blob|raw|commits|commit|branches|tags)\b/.test(p))) {
        const res = await api(gh, method, path, { token: dave.token, body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 404, REPO_404]);
      }
    });

    it('when a read collaborator lists, reads, creates and comments, then they are allowed', async () => {
      const list = await api(gh, 'GET', '/api/repos/alice/priv/merge-requests', { token: carol.token });
      const detail = await api(gh, 'GET', '/api/repos/alice/priv/merge-requests/1', { token: carol.token });
      const created = await api(gh, 'POST', '/api/repos/alice/priv/merge-requests', { token: carol.token, body: { title: 'by carol', source_branch: 'feature', target_branch: 'main' } });
      const comment = await api(gh, 'POST', '/api/repos/alice/priv/merge-requests/1/comments', { token: carol.token, body: { body: 'reader comment' } });
      expect([list.status, detail.status, created.status, comment.status]).toEqual([200, 200, 201, 201]);
    });

    it('when a read collaborator merges or manages webhooks, then the seed\'s 400 write messages', async () => {
      const merge = await api(gh, 'POST', '/api/repos/alice/priv/merge-requests/1/merge', { token: carol.token });
      expect([merge.status, merge.body]).toEqual([400, { error: 'You do not have write access to this repository' }]);
      const hooks = await api(gh, 'GET', '/api/repos/alice/priv/webhooks', { token: carol.token });
      expect([hooks.status, hooks.body]).toEqual([400, { error: 'Write access required' }]);
    });

    it('when a write collaborator or a site admin manages webhooks, then 200 (write access, §5 table)', async () => {
      for (const who of [bob, root]) {
        const res = await api(gh, 'GET', '/api/repos/alice/priv/webhooks', { token: who.token });
        expect([who.username, res.status, res.body]).toEqual([who.username, 200, []]);
      }
    });

    it('when the repository does not exist, then 404 Repository not found for signed-in callers', async () => {
      for (const [method, path, body] of endpoints('alice/nothere').filter(([, p]) => !/\/(tree|blob|raw|commits|commit|branches|tags)\b/.test(p))) {
        const res = await api(gh, method, path, { token: alice.token, body });
        expect([method, path, res.status, res.body]).toEqual([method, path, 404, REPO_404]);
      }
    });
  });

  describe('git transport (CONTRACT §3, §9)', () => {
    it('when an anonymous client fetches a private repository, then 401 with WWW-Authenticate Basic realm="githost"', async () => {
      const res = await fetch(`${gh.url}/alice/priv.git/info/refs?service=git-upload-pack`);
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="githost"']);
    });

    it('when an anonymous client pushes to a public repository, then 401 with WWW-Authenticate', async () => {
      const res = await fetch(`${gh.url}/alice/pub.git/info/refs?service=git-receive-pack`);
      expect([res.status, res.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="githost"']);
    });

    it('when a signed-in user without access fetches a private repository, then 404', async () => {
      const auth = `Basic ${Buffer.from(`dave:${dave.token}`).toString('base64')}`;
      const res = await fetch(`${gh.url}/alice/priv.git/info/refs?service=git-upload-pack`, { headers: { authorization: auth } });
      expect(res.status).toBe(404);
    });

    it('when a read collaborator clones, then it works, and their push is refused with the branch unchanged', async () => {
      const dir = makeWorkdir();
      await git(dir, 'clone', '-q', pushUrl(gh, 'carol', carol.token, 'alice', 'priv'), 'priv');
      const wd = `${dir}/priv`;
      expect(await git(wd, 'rev-parse', 'origin/main')).toBe(sha);
      await git(wd, 'commit', '-q', '--allow-empty', '-m', 'reader push');
      const push = await gitResult(wd, 'push', 'origin', 'HEAD:main');
      expect(push.code).not.toBe(0);
      const remote = await git(wd, 'ls-remote', pushUrl(gh, 'alice', alice.token, 'alice', 'priv'), 'refs/heads/main');
      expect(remote.split('\t')[0]).toBe(sha);
    });

    it('when a write collaborator pushes a branch to the private repository, then it lands', async () => {
      const dir = makeWorkdir();
      await git(dir, 'clone', '-q', pushUrl(gh, 'bob', bob.token, 'alice', 'priv'), 'priv');
      const wd = `${dir}/priv`;
      await git(wd, 'commit', '-q', '--allow-empty', '-m', 'writer push');
      const mine = await git(wd, 'rev-parse', 'HEAD');
      await git(wd, 'push', '-q', 'origin', 'HEAD:refs/heads/bob-branch');
      const branches = await api(gh, 'GET', '/api/repos/alice/priv/branches', { token: bob.token });
      expect(branches.body.branches.find((b: { name: string }) => b.name === 'bob-branch')).toEqual({ name: 'bob-branch', sha: mine, isDefault: false });
    });

    it('when anyone clones the public repository anonymously, then it works', async () => {
      const dir = makeWorkdir();
      const res = await gitResult(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'pub'), 'pub');
      expect(res.code).toBe(0);
    });

    it('when the Basic credential is invalid, then 401 even on a public repository', async () => {
      const auth = `Basic ${Buffer.from('alice:wrong-token').toString('base64')}`;
      const res = await fetch(`${gh.url}/alice/pub.git/info/refs?service=git-upload-pack`, { headers: { authorization: auth } });
      expect(res.status).toBe(401);
    });
  });

  describe('accounts and repositories (CONTRACT §8)', () => {
    it('when the admin creates a user, then 201 with exactly id, username, email, is_admin, created_at; a taken name is 409', async () => {
      const res = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'frank', email: 'frank@example.com' } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'email', 'id', 'is_admin', 'username']);
      expect(res.body).toMatchObject({ username: 'frank', email: 'frank@example.com', is_admin: false });
      const again = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'frank', email: 'f2@example.com' } });
      expect([again.status, again.body]).toEqual([409, { error: 'Username already taken' }]);
    });

    it('when a user makes a token, then 201 with id, name, token, created_at (and its scopes and expiry) and the token identifies them', async () => {
      const res = await api(gh, 'POST', '/api/user/tokens', { token: dave.token, body: { name: 'ci' } });
      expect(res.status).toBe(201);
      // CONTRACT §8's fields, plus the token's scopes (all the user has by default) and expiry.
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'expires_at', 'id', 'name', 'scopes', 'token']);
      expect([res.body.scopes, res.body.expires_at]).toEqual([['read', 'write'], null]);
      // CONTRACT §3: random, at least 32 bytes (43 characters even in base64url)
      expect(res.body.token.length).toBeGreaterThanOrEqual(43);
      const me = await api(gh, 'GET', '/api/user', { token: res.body.token });
      expect([me.status, me.body]).toEqual([200, { id: dave.id, username: 'dave', email: 'dave@example.com', is_admin: false }]);
    });

    it('when a repository is created, then 201 with the CONTRACT §8 fields; a duplicate is 409 Repository already exists', async () => {
      const res = await api(gh, 'POST', '/api/repos', { token: dave.token, body: { name: 'tools', description: 'handy' } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['allow_tag_changes', 'clone_url', 'created_at', 'default_branch', 'description', 'full_name', 'id', 'name', 'owner', 'private']);
      expect(res.body).toMatchObject({ owner: 'dave', name: 'tools', full_name: 'dave/tools', private: false, default_branch: 'main', description: 'handy' });
      const dup = await api(gh, 'POST', '/api/repos', { token: dave.token, body: { name: 'tools' } });
      expect([dup.status, dup.body]).toEqual([409, { error: 'Repository already exists' }]);
      const read = await api(gh, 'GET', '/api/repos/dave/tools');
      expect([read.status, read.body]).toEqual([200, res.body]);
    });

    it('when a repository name breaks the naming rule, then 400', async () => {
      for (const name of ['.hidden', '-dash', 'ends.git', 'a/b', 'x'.repeat(101), '', 'sp ace']) {
        const res = await api(gh, 'POST', '/api/repos', { token: dave.token, body: { name } });
        expect([name, res.status]).toEqual([name, 400]);
      }
    });

    it('when a username breaks the naming rule, then 400', async () => {
      for (const username of ['.dot', '-dash', 'name.git', 'sp ace', 'a/b', 'x'.repeat(101), '']) {
        const res = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username, email: 'n@example.com' } });
        expect([username, res.status]).toEqual([username, 400]);
      }
    });

    it('when a site admin creates a repository for another owner, then it belongs to that owner', async () => {
      const res = await api(gh, 'POST', '/api/repos', { token: root.token, body: { name: 'given', owner: 'dave', private: true } });
      expect([res.status, res.body.owner, res.body.full_name, res.body.private]).toEqual([201, 'dave', 'dave/given', true]);
      expect((await api(gh, 'GET', '/api/repos/dave/given', { token: dave.token })).status).toBe(200);
    });

    it('when a non-admin creates a repository for another owner, then it is refused', async () => {
      const res = await api(gh, 'POST', '/api/repos', { token: dave.token, body: { name: 'squat', owner: 'alice' } });
      expect([res.status, res.body]).toEqual([403, { error: 'Forbidden' }]);
    });

    it('when a collaborator is removed, then their access to the private repository ends (404)', async () => {
      await addCollaborator(gh, alice.token, 'alice', 'priv', 'dave', 'read');
      expect((await api(gh, 'GET', '/api/repos/alice/priv', { token: dave.token })).status).toBe(200);
      const del = await api(gh, 'DELETE', '/api/repos/alice/priv/collaborators/dave', { token: alice.token });
      expect(del.status).toBe(204);
      // the gateway may serve a grant from its short Authorize cache (2 s) until it expires
      const after = await eventually(async () => {
        const r = await api(gh, 'GET', '/api/repos/alice/priv', { token: dave.token });
        return r.status === 200 ? undefined : r;
      });
      expect([after.status, after.body]).toEqual([404, REPO_404]);
    });

    it('when health and readiness are asked at the gateway, then they answer; metrics only on the metrics port (CONTRACT §8)', async () => {
      expect((await fetch(`${gh.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${gh.url}/readyz`)).status).toBe(200);
      const onPublic = await fetch(`${gh.url}/metrics`);
      expect([onPublic.status, await onPublic.json()]).toEqual([404, { error: 'Not found' }]);
      const metrics = await fetch(gh.metricsUrl);
      expect([metrics.status, (await metrics.text()).includes('# HELP githost_gateway_')]).toEqual([200, true]);
    });
  });

  describe('errors at the edge (CONTRACT §4, §8)', () => {
    it('when a JSON body is malformed, then 400 Invalid JSON body', async () => {
      for (const path of ['/api/repos/alice/pub/merge-requests', '/api/repos/alice/pub/webhooks', '/api/repos/alice/pub/merge-requests/1/comments']) {
        const res = await api(gh, 'POST', path, { token: alice.token, body: '{"title": ' });
        expect([path, res.status, res.body]).toEqual([path, 400, { error: 'Invalid JSON body' }]);
      }
    });

    it('when a JSON body is over 1 MiB, then 413 with a JSON error', async () => {
      const res = await api(gh, 'POST', '/api/repos/alice/pub/merge-requests/1/comments', { token: alice.token, body: { body: 'x'.repeat(1024 * 1024 + 10) } });
      expect(res.status).toBe(413);
      expect(typeof res.body.error).toBe('string');
    });

    it('when a route or method does not exist, then a 4xx with a JSON error body, never HTML', async () => {
      for (const [method, path] of [['GET', '/api/no/such/route/here'], ['PATCH', '/api/repos/alice/pub/merge-requests/1'], ['PUT', '/api/repos/alice/pub/webhooks']] as const) {
        const res = await api(gh, method, path, { token: alice.token });
        expect([method, path, res.status >= 400 && res.status < 500, (res.headers.get('content-type') ?? '').includes('json'), typeof res.body?.error]).toEqual([method, path, true, true, 'string']);
      }
      expect((await api(gh, 'GET', '/api/no/such/route/here')).status).toBe(404);
    });

    it('when a non-admin calls an admin endpoint or a non-owner manages collaborators, then 403 Forbidden', async () => {
      const admin = await api(gh, 'POST', '/api/admin/users', { token: alice.token, body: { username: 'eve', email: 'eve@example.com' } });
      expect([admin.status, admin.body]).toEqual([403, { error: 'Forbidden' }]);
      const collab = await api(gh, 'PUT', '/api/repos/alice/priv/collaborators/dave', { token: bob.token, body: { permission: 'write' } });
      expect([collab.status, collab.body]).toEqual([403, { error: 'Forbidden' }]);
    });
  });
});
