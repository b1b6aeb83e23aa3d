import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type TestGithost } from './support/index.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

/**
 * services/accounts/README.md#sessions, through the gateway with the real git client: a user signs in with
 * her password, uses the session's secret as a token on the API and as the password of git's
 * Basic auth, lists her sessions and signs out.
 */
describe('signing in with a password', () => {
  let gh: TestGithost;

  const signIn = (username: string, password: string) => api(gh, 'POST', '/api/sessions', { body: { username, password }, headers: { 'user-agent': BROWSER } });

  async function userWithPassword(username: string, password: string): Promise<string> {
    const created = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username, email: `${username}@example.com`, password } });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(password);
    return created.body.id;
  }

  beforeAll(async () => {
    gh = await startTestGithost();
  }, 120_000);

  afterAll(async () => {
    await gh?.stop();
  });

  it('when a user signs in, then the secret creates a repository, pushes and clones with git, lists her session, and stops working once she signs out', async () => {
    const id = await userWithPassword('sofia', 'sofia has a long password');
    const session = await signIn('sofia', 'sofia has a long password');
    expect(session.status).toBe(201);
    const secret = session.body.secret as string;
    expect(secret).toMatch(/^ghsess_/);
    expect(await api(gh, 'GET', '/api/user', { token: secret })).toMatchObject({ status: 200, body: { id, username: 'sofia', is_admin: false } });

    const repo = await api(gh, 'POST', '/api/repos', { token: secret, body: { name: 'notes', private: true } });
    expect([repo.status, repo.body.full_name]).toEqual([201, 'sofia/notes']);
    const wd = makeWorkdir();
    const sha = await commitFiles(wd, { 'README.md': 'notes\n' }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, 'sofia', secret, 'sofia', 'notes'), 'main');
    const copy = makeWorkdir();
    await git(copy, 'clone', '-q', pushUrl(gh, 'sofia', secret, 'sofia', 'notes'), 'notes');
    expect((await git(`${copy}/notes`, 'rev-parse', 'HEAD')).trim()).toBe(sha);

    const listed = await api(gh, 'GET', '/api/user/sessions', { token: secret });
    expect(listed).toMatchObject({ status: 200 });
    expect(listed.body).toEqual([{
      id: session.body.id, created_at: expect.any(String), last_used_at: expect.any(String), expires_at: session.body.expires_at, idle_expires_at: expect.any(String),
      user_agent: BROWSER, address: expect.stringMatching(/127\.0\.0\.1$/), current: true,
    }]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    expect((await api(gh, 'DELETE', '/api/user/sessions/current', { token: secret })).status).toBe(204);
    // At once, not when the gateway's 5 s cache would have let go.
    expect(await api(gh, 'GET', '/api/user', { token: secret })).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    const clone = await gitResult(makeWorkdir(), 'clone', '-q', pushUrl(gh, 'sofia', secret, 'sofia', 'notes'), 'again');
    expect([clone.code, clone.stderr]).toEqual([128, expect.stringContaining('Authentication failed')]);
  });

  it('when the password is wrong or the user unknown, then the same 401; after 10 failures the account answers 429 with Retry-After', async () => {
    await userWithPassword('tariq', 'tariq password!');
    expect(await signIn('tariq', 'not the password')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });
    expect(await signIn('no-such-user', 'tariq password!')).toMatchObject({ status: 401, body: { error: 'Invalid username or password' } });
    for (let i = 1; i < 10; i++) expect((await signIn('tariq', `guess number ${i}`)).status).toBe(401);
    const limited = await signIn('tariq', 'tariq password!');
    expect([limited.status, limited.body]).toEqual([429, { error: 'Too many failed sign-in attempts; try again later' }]);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('when she changes her password, then her other session stops working at once and the old password no longer signs in', async () => {
    await userWithPassword('ulla', 'ulla first password');
    const laptop = (await signIn('ulla', 'ulla first password')).body.secret as string;
    const phone = (await signIn('ulla', 'ulla first password')).body.secret as string;
    expect((await api(gh, 'GET', '/api/user', { token: phone })).status).toBe(200);
    expect(await api(gh, 'PUT', '/api/user/password', { token: laptop, body: { current_password: 'wrong password', password: 'ulla second password' } })).toMatchObject({ status: 403, body: { error: 'Current password is incorrect' } });
    expect((await api(gh, 'PUT', '/api/user/password', { token: laptop, body: { current_password: 'ulla first password', password: 'ulla second password' } })).status).toBe(204);
    expect((await api(gh, 'GET', '/api/user', { token: phone })).status).toBe(401);
    expect((await api(gh, 'GET', '/api/user', { token: laptop })).status).toBe(200);
    expect((await signIn('ulla', 'ulla first password')).status).toBe(401);
    expect((await signIn('ulla', 'ulla second password')).status).toBe(201);
  });

  it('when a site admin suspends a user, then her session stops working at once', async () => {
    await userWithPassword('vik', 'vik password 1');
    const secret = (await signIn('vik', 'vik password 1')).body.secret as string;
    expect((await api(gh, 'GET', '/api/user', { token: secret })).status).toBe(200);
    expect((await api(gh, 'PATCH', '/api/admin/users/vik', { token: gh.adminToken, body: { suspended: true } })).status).toBe(200);
    expect((await api(gh, 'GET', '/api/user', { token: secret })).status).toBe(401);
    expect((await api(gh, 'PATCH', '/api/admin/users/vik', { token: gh.adminToken, body: { suspended: false } })).status).toBe(200);
    expect((await api(gh, 'GET', '/api/user', { token: secret })).status).toBe(401);
  });

  it('when a password holds unpaired surrogates, then setting, changing or signing in with it is 400 naming the rule and the set password is unchanged', async () => {
    const rule = (field: string) => ({ error: `${field} must be well-formed Unicode (no unpaired UTF-16 surrogate)` });
    const lone = '\ud800'.repeat(10);
    expect(await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username: 'wren', email: 'wren@example.com', password: lone } })).toMatchObject({ status: 400, body: rule('password') });

    await userWithPassword('wren', 'wren first password'); // 201, not 409: the refused one left no user
    expect(await api(gh, 'PUT', '/api/admin/users/wren/password', { token: gh.adminToken, body: { password: lone } })).toMatchObject({ status: 400, body: rule('password') });
    const secret = (await signIn('wren', 'wren first password')).body.secret as string;
    expect(await api(gh, 'PUT', '/api/user/password', { token: secret, body: { current_password: 'wren first password', password: lone } })).toMatchObject({ status: 400, body: rule('password') });
    expect(await api(gh, 'PUT', '/api/user/password', { token: secret, body: { current_password: lone, password: 'wren second password' } })).toMatchObject({ status: 400, body: rule('current_password') });
    // Each of these would have been the same password once encoded lossily (U+FFFD for each).
    for (const other of [lone, '\udfff'.repeat(10), '\udbff'.repeat(10)]) expect(await signIn('wren', other)).toMatchObject({ status: 400, body: rule('password') });
    expect((await signIn('wren', '\ufffd'.repeat(10))).status).toBe(401);
    expect((await signIn('wren', 'wren first password')).status).toBe(201);
  });
});
