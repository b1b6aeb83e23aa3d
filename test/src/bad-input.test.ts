import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  api, cloneUrl, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, rawGet, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/** Bad input (CONTRACT §4): each one through the gateway, on the embedded defaults. */
let gh: TestGithost;
let alice: TestUser;

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'demo');
  const wd = makeWorkdir();
  await commitFiles(wd, { 'README.md': '# demo\n' }, 'first');
  await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main');
});

afterAll(async () => {
  await gh?.stop();
});

describe('names that break the rules (CONTRACT §8)', () => {
  it.each([['.hidden'], ['-dash'], ['demo.git'], ['has space'], ['a/b'], ['x'.repeat(101)], ['']])('when a repository is named %j, then 400 with a message', async (name) => {
    const res = await api(gh, 'POST', '/api/repos', { token: alice.token, body: { name } });
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
    expect(res.body.error.length).toBeGreaterThan(0);
  });

  it('when a username breaks the rules, then 400; when it is taken, then 409', async () => {
    const bad = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: '-bob', email: 'b@example.com' } });
    expect(bad.status).toBe(400);
    const taken = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'alice', email: 'a2@example.com' } });
    expect([taken.status, taken.body]).toEqual([409, { error: 'Username already taken' }]);
  });

  it('when a repository name is taken, then 409 Repository already exists', async () => {
    const res = await api(gh, 'POST', '/api/repos', { token: alice.token, body: { name: 'demo' } });
    expect([res.status, res.body]).toEqual([409, { error: 'Repository already exists' }]);
  });
});

describe('unknown repositories', () => {
  it('when a repository or owner does not exist, then 404 Repository not found (browse: Not found)', async () => {
    for (const path of ['/api/repos/alice/nope', '/api/repos/nobody/demo', '/api/repos/alice/nope/merge-requests']) {
      const res = await api(gh, 'GET', path, { token: alice.token });
      expect([path, res.status, res.body]).toEqual([path, 404, { error: 'Repository not found' }]);
    }
    const browse = await api(gh, 'GET', '/api/repos/alice/nope/branches');
    expect([browse.status, browse.body]).toEqual([404, { error: 'Not found' }]);
  });
});

describe('credentials', () => {
  it('when the token is wrong, then 401 even on an endpoint that needs none', async () => {
    for (const path of ['/api/user', '/api/repos/alice/demo', '/api/repos/alice/demo/branches']) {
      const res = await api(gh, 'GET', path, { token: 'not-a-real-token-0123456789abcdef' });
      expect([path, res.status, res.body]).toEqual([path, 401, { error: 'Authentication required' }]);
    }
  });

  it('when the token is missing on an endpoint that needs one, then 401', async () => {
    const res = await api(gh, 'POST', '/api/repos', { body: { name: 'anon' } });
    expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
  });

  it('when a token has been revoked, then it is refused on the API and by git', async () => {
    const issued = await api(gh, 'POST', '/api/user/tokens', { token: alice.token, body: { name: 'short-lived' } });
    expect(issued.status).toBe(201);
    const revoked = await api(gh, 'DELETE', `/api/user/tokens/${issued.body.id}`, { token: alice.token });
    expect(revoked.status).toBe(204);
    const res = await api(gh, 'GET', '/api/user', { token: issued.body.token });
    expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
    // git sends credentials only after a 401, which a public repository gives on push alone.
    const wd = makeWorkdir();
    await commitFiles(wd, { 'x.txt': 'x\n' }, 'with a revoked token');
    const push = await gitResult(wd, 'push', pushUrl(gh, 'alice', issued.body.token, 'alice', 'demo'), 'main:refs/heads/revoked');
    expect(push.code).toBe(128);
    expect(push.stderr).toContain('Authentication failed');
  });

  it('when a client forges the internal identity headers, then they are ignored', async () => {
    const forged = Buffer.from(JSON.stringify({ principal: { user_id: null, username: 'admin', email: '', is_admin: true }, repo: null, request_id: 'x', issued_at: Date.now() })).toString('base64url');
    const headers = { 'x-githost-identity': forged, 'x-githost-identity-signature': 'ab'.repeat(32) };
    const anonymous = await api(gh, 'POST', '/api/admin/users', { headers, body: { username: 'mallory', email: 'm@example.com' } });
    expect([anonymous.status, anonymous.body]).toEqual([401, { error: 'Authentication required' }]);
    const asAlice = await api(gh, 'POST', '/api/admin/users', { token: alice.token, headers, body: { username: 'mallory', email: 'm@example.com' } });
    expect([asAlice.status, asAlice.body]).toEqual([403, { error: 'Forbidden' }]);
    const me = await api(gh, 'GET', '/api/user', { token: alice.token, headers });
    expect(me.body).toMatchObject({ username: 'alice', is_admin: false });
  });
});

describe('request bodies', () => {
  it('when the JSON is malformed, then 400 Invalid JSON body', async () => {
    const res = await api(gh, 'POST', '/api/repos', { token: alice.token, body: '{"name": "x",' });
    expect([res.status, res.body]).toEqual([400, { error: 'Invalid JSON body' }]);
  });

  it('when the body is over 1 MiB, then 413 and nothing is created', async () => {
    const res = await api(gh, 'POST', '/api/repos', { token: alice.token, body: { name: 'huge', description: 'x'.repeat(1024 * 1024) } });
    expect([res.status, res.body]).toEqual([413, { error: 'Request body too large' }]);
    expect((await api(gh, 'GET', '/api/repos/alice/huge', { token: alice.token })).status).toBe(404);
  });
});

describe('refs and paths that try to escape', () => {
  it('when a ref looks like an option, then it is an unknown ref, never a git option', async () => {
    const res = await rawGet(gh, '/api/repos/alice/demo/commits/--output=%2Ftmp%2Fgithost-pwned');
    expect([res.status, res.body]).toEqual([404, { error: 'Ref not found: --output=/tmp/githost-pwned' }]);
  });

  it('when a path climbs out with .., then nothing outside the repository is read', async () => {
    const res = await rawGet(gh, '/api/repos/alice/demo/blob/main/../../../../etc/passwd');
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('root:');
  });

  it('when git clones after all that, then the repository is intact', async () => {
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    expect(await git(`${dir}/demo`, 'log', '--format=%s')).toBe('first');
  });
});
