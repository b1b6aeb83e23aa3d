import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const READ_ONLY = { error: 'This token has only the "read" scope: it can clone and browse, not push or change anything' };

/**
 * services/accounts/README.md#users-and-tokens and #token-scopes, through the gateway with the real git
 * client: a site admin locks users out, tokens expire and carry scopes.
 */
describe('site admin control of users and tokens', () => {
  let gh: TestGithost;
  let root: TestUser;

  /** A user owning a private repository `<username>/work` with one commit on main (private, so
   *  git must present the token: a public clone would succeed anonymously without sending it). */
  async function userWithRepository(username: string): Promise<{ user: TestUser; wd: string; sha: string }> {
    const user = await createUser(gh, username);
    await createRepo(gh, user.token, 'work', { private: true });
    const wd = makeWorkdir();
    const sha = await commitFiles(wd, { 'README.md': `${username}\n` }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, username, user.token, username, 'work'), 'main');
    return { user, wd, sha };
  }

  /** Clones owner/work with the token into a fresh directory; git's exit code and stderr. */
  async function cloneWith(owner: string, token: string) {
    return gitResult(makeWorkdir(), 'clone', '-q', pushUrl(gh, owner, token, owner, 'work'), 'copy');
  }

  beforeAll(async () => {
    gh = await startTestGithost();
    root = await createUser(gh, 'root', { admin: true });
  }, 120_000);

  afterAll(async () => {
    await gh?.stop();
  });

  it('when a site admin lists users, then they come by username in pages with GitHub Link headers; a normal user gets 403', async () => {
    for (const name of ['lister-b', 'lister-a']) await createUser(gh, name);
    const first = await api(gh, 'GET', '/api/admin/users?per_page=2', { token: root.token });
    expect(first.status).toBe(200);
    expect(first.body.map((u: { username: string }) => u.username)).toEqual(['lister-a', 'lister-b']);
    expect(first.body[0]).toEqual({ id: expect.any(String), username: 'lister-a', email: 'lister-a@example.com', is_admin: false, suspended: false, suspended_at: null, created_at: expect.any(String) });
    const link = first.headers.get('link') ?? '';
    expect(link).toMatch(/<[^>]*\/api\/admin\/users\?per_page=2&page=2>; rel="next"/);
    expect(link).toMatch(/<[^>]*\/api\/admin\/users\?per_page=2&page=2>; rel="last"/);
    const second = await api(gh, 'GET', '/api/admin/users?per_page=2&page=2', { token: root.token });
    expect(second.body.map((u: { username: string }) => u.username)).toEqual(['root']);
    expect(second.headers.get('link')).toMatch(/rel="prev".*rel="first"/);

    const plain = await createUser(gh, 'lister-plain');
    expect(await api(gh, 'GET', '/api/admin/users', { token: plain.token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
  });

  it('when a site admin suspends a user, then their token is refused for REST, clone and push (401); unsuspended, it works again', async () => {
    const { user: sam, wd } = await userWithRepository('sam');
    expect((await cloneWith('sam', sam.token)).code).toBe(0);

    const suspended = await api(gh, 'PATCH', '/api/admin/users/sam', { token: root.token, body: { suspended: true } });
    expect([suspended.status, suspended.body.suspended]).toEqual([200, true]);
    expect(await api(gh, 'GET', '/api/user', { token: sam.token })).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    const clone = await cloneWith('sam', sam.token);
    expect([clone.code, clone.stderr]).toEqual([128, expect.stringContaining('Authentication failed')]);
    await commitFiles(wd, { 'more.txt': 'more\n' }, 'second');
    const push = await gitResult(wd, 'push', pushUrl(gh, 'sam', sam.token, 'sam', 'work'), 'main');
    expect([push.code, push.stderr]).toEqual([128, expect.stringContaining('Authentication failed')]);
    // The repository itself is untouched: a site admin still clones it.
    expect((await gitResult(makeWorkdir(), 'clone', '-q', pushUrl(gh, 'root', root.token, 'sam', 'work'), 'copy')).code).toBe(0);

    expect((await api(gh, 'PATCH', '/api/admin/users/sam', { token: root.token, body: { suspended: false } })).body.suspended).toBe(false);
    expect((await api(gh, 'GET', '/api/user', { token: sam.token })).status).toBe(200);
    expect((await gitResult(wd, 'push', '-q', pushUrl(gh, 'sam', sam.token, 'sam', 'work'), 'main')).code).toBe(0);
  });

  it('when a site admin deletes a user who owns a repository, then 409; once it is deleted, the user goes and their token is refused', async () => {
    const { user: dora } = await userWithRepository('dora');
    expect(await api(gh, 'DELETE', '/api/admin/users/dora', { token: root.token })).toMatchObject({ status: 409, body: { error: 'User owns repositories' } });
    expect((await api(gh, 'DELETE', '/api/repos/dora/work', { token: dora.token })).status).toBe(204);
    expect((await api(gh, 'DELETE', '/api/admin/users/dora', { token: root.token })).status).toBe(204);
    expect(await api(gh, 'GET', '/api/user', { token: dora.token })).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    expect(await api(gh, 'PATCH', '/api/admin/users/dora', { token: root.token, body: { suspended: true } })).toMatchObject({ status: 404, body: { error: 'User not found' } });
  });

  it('when a site admin lists and revokes another user\'s token, then the list shows no secret and the token stops working at once', async () => {
    const { user: tina } = await userWithRepository('tina');
    const listed = await api(gh, 'GET', '/api/admin/users/tina/tokens', { token: root.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([{ id: expect.any(String), name: 'e2e', scopes: ['read', 'write'], created_at: expect.any(String), last_used_at: expect.any(String), expires_at: null }]);
    expect(JSON.stringify(listed.body)).not.toContain(tina.token);
    expect((await api(gh, 'DELETE', `/api/admin/users/tina/tokens/${listed.body[0].id}`, { token: root.token })).status).toBe(204);
    expect((await api(gh, 'GET', '/api/user', { token: tina.token })).status).toBe(401);
    const clone = await cloneWith('tina', tina.token);
    expect([clone.code, clone.stderr]).toEqual([128, expect.stringContaining('Authentication failed')]);
  });

  it('when a token expires, then REST and git answer 401', async () => {
    const { user: eve } = await userWithRepository('eve');
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const created = await api(gh, 'POST', '/api/user/tokens', { token: eve.token, body: { name: 'short', expires_at: expiresAt } });
    expect([created.status, created.body.expires_at, created.body.scopes]).toEqual([201, expiresAt, ['read', 'write']]);
    expect((await api(gh, 'GET', '/api/user', { token: created.body.token })).status).toBe(200);
    const listed = await api(gh, 'GET', '/api/user/tokens', { token: eve.token });
    expect(listed.body.find((t: { name: string }) => t.name === 'short')).toEqual({ id: created.body.id, name: 'short', scopes: ['read', 'write'], created_at: expect.any(String), last_used_at: expect.any(String), expires_at: expiresAt });

    await sleep(Date.parse(expiresAt) - Date.now() + 100);
    expect(await api(gh, 'GET', '/api/user', { token: created.body.token })).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    const clone = await cloneWith('eve', created.body.token);
    expect([clone.code, clone.stderr]).toEqual([128, expect.stringContaining('Authentication failed')]);
  });

  it('when a token is read-scoped, then it clones and browses, but push, merge requests and comments are refused with 403', async () => {
    const { user: rita, wd } = await userWithRepository('rita');
    await git(wd, 'checkout', '-q', '-b', 'feature');
    await commitFiles(wd, { 'feature.txt': 'f\n' }, 'feature');
    await git(wd, 'push', '-q', pushUrl(gh, 'rita', rita.token, 'rita', 'work'), 'feature');
    const mr = await api(gh, 'POST', '/api/repos/rita/work/merge-requests', { token: rita.token, body: { title: 'Feature', source_branch: 'feature', target_branch: 'main' } });
    expect(mr.status).toBe(201);

    const created = await api(gh, 'POST', '/api/user/tokens', { token: rita.token, body: { name: 'reader', scopes: ['read'] } });
    expect([created.status, created.body.scopes]).toEqual([201, ['read']]);
    const reader = created.body.token as string;

    const clone = await cloneWith('rita', reader);
    expect(clone.code).toBe(0);
    const tree = await api(gh, 'GET', '/api/repos/rita/work/tree/main', { token: reader });
    expect([tree.status, tree.body.entries?.map((e: { name: string }) => e.name) ?? tree.body]).toEqual([200, ['README.md']]);
    expect((await api(gh, 'GET', '/api/repos/rita/work/merge-requests/1', { token: reader })).status).toBe(200);

    await git(wd, 'checkout', '-q', 'main');
    await commitFiles(wd, { 'second.txt': '2\n' }, 'second');
    const push = await gitResult(wd, 'push', pushUrl(gh, 'rita', reader, 'rita', 'work'), 'main');
    expect([push.code, push.stderr]).toEqual([128, expect.stringContaining('403')]);
    expect(await api(gh, 'POST', '/api/repos/rita/work/merge-requests', { token: reader, body: { title: 'Again', source_branch: 'feature', target_branch: 'main' } })).toMatchObject({ status: 403, body: READ_ONLY });
    expect(await api(gh, 'POST', '/api/repos/rita/work/merge-requests/1/comments', { token: reader, body: { body: 'looks good' } })).toMatchObject({ status: 403, body: READ_ONLY });
    expect(await api(gh, 'POST', '/api/repos/rita/work/merge-requests/1/merge', { token: reader })).toMatchObject({ status: 403, body: READ_ONLY });
    expect(await api(gh, 'POST', '/api/user/tokens', { token: reader, body: { scopes: ['write'] } })).toMatchObject({ status: 403, body: READ_ONLY });
    // Nothing moved: main is still the first commit, and the merge request has no comment.
    const remoteMain = (await git(wd, 'ls-remote', pushUrl(gh, 'rita', rita.token, 'rita', 'work'), 'refs/heads/main')).split('\t')[0];
    expect(remoteMain).toBe(await git(wd, 'rev-parse', 'HEAD~1'));
    expect((await api(gh, 'GET', '/api/repos/rita/work/merge-requests/1', { token: rita.token })).body.comments).toEqual([]);
  });

  it('when a site admin\'s token has write but not admin, then it acts as a normal user; asking for a scope beyond the user\'s is 400', async () => {
    const writeOnly = await api(gh, 'POST', '/api/user/tokens', { token: root.token, body: { scopes: ['write'] } });
    expect(writeOnly.body.scopes).toEqual(['read', 'write']);
    expect(await api(gh, 'GET', '/api/admin/users', { token: writeOnly.body.token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect(await api(gh, 'POST', '/api/user/tokens', { token: writeOnly.body.token, body: { scopes: ['admin'] } })).toMatchObject({ status: 400, body: { error: 'The "admin" scope is only for site admins' } });
    const plain = await createUser(gh, 'scoped-plain');
    expect(await api(gh, 'POST', '/api/user/tokens', { token: plain.token, body: { scopes: ['admin'] } })).toMatchObject({ status: 400, body: { error: 'The "admin" scope is only for site admins' } });
    expect(await api(gh, 'POST', '/api/user/tokens', { token: plain.token, body: { expires_at: '2001-01-01T00:00:00Z' } })).toMatchObject({ status: 400, body: { error: 'expires_at must be in the future' } });
  });

  it('when a write-scoped CI token posts a commit status, then it is stored', async () => {
    const { user: cid, sha } = await userWithRepository('cid');
    const ci = await api(gh, 'POST', '/api/user/tokens', { token: cid.token, body: { name: 'ci', scopes: ['write'] } });
    expect(ci.body.scopes).toEqual(['read', 'write']);
    const status = await api(gh, 'POST', `/api/repos/cid/work/statuses/${sha}`, { token: ci.body.token, body: { state: 'success', context: 'ci/build' } });
    expect(status.status).toBe(201);
    expect(status.body).toMatchObject({ state: 'success', context: 'ci/build' });
    const reader = await api(gh, 'POST', '/api/user/tokens', { token: cid.token, body: { name: 'viewer', scopes: ['read'] } });
    expect(await api(gh, 'POST', `/api/repos/cid/work/statuses/${sha}`, { token: reader.body.token, body: { state: 'failure', context: 'ci/build' } })).toMatchObject({ status: 403, body: READ_ONLY });
    const statuses = await api(gh, 'GET', `/api/repos/cid/work/commits/${sha}/statuses`, { token: reader.body.token });
    expect([statuses.status, statuses.body.map((s: { state: string }) => s.state)]).toEqual([200, ['success']]);
  });
});
