import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, cookiePair, csrfOf, commitFiles, createRepo, git, makeWorkdir, pushUrl, startTestGithost, textOf, type TestGithost } from './support/index.js';

/**
 * The web signed in, end to end through the gateway (services/web/README.md#sessions): sign-in with a password
 * makes a real session, pages read as that person (a private repository is a 404 to anyone who
 * may not read it, exactly as a missing one), settings change what the API holds, sign-out ends
 * the session on the server.
 */
let gh: TestGithost;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) WebTest/1.0';
const PASSWORDS: Record<string, string> = { alice: 'alice has a long password', bob: 'bob has a long password', carol: 'carol has a long password' };
const tokens: Record<string, string> = {};

interface Answer {
  status: number;
  html: string;
  location: string | null;
  cookies: string[];
}

async function send(method: 'GET' | 'POST', path: string, opts: { cookie?: string; form?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'user-agent': BROWSER };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(gh.url + path, { method, headers, body: opts.form ? new URLSearchParams(opts.form).toString() : undefined, redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), cookies: res.headers.getSetCookie() };
}


/** Signs in with the web's form as a browser does; the cookie header of the session. */
async function signIn(username: string, password = PASSWORDS[username]!): Promise<string> {
  const form = await send('GET', '/-/sign-in');
  const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession=')));
  const res = await send('POST', '/-/sign-in', { cookie: pre, form: { csrf: csrfOf(form.html), username, password, next: '/' } });
  expect([res.status, res.location]).toEqual([303, '/']);
  return cookiePair(res.cookies.find((c) => c.startsWith('githost_session=')));
}

const secretOf = (cookie: string) => decodeURIComponent(cookie.slice('githost_session='.length));

beforeAll(async () => {
  gh = await startTestGithost();
  for (const username of Object.keys(PASSWORDS)) {
    const user = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username, email: `${username}@example.com`, password: PASSWORDS[username] } });
    expect(user.status).toBe(201);
    const token = await api(gh, 'POST', `/api/admin/users/${username}/tokens`, { token: gh.adminToken, body: { name: 'setup' } });
    tokens[username] = token.body.token;
  }
  await createRepo(gh, tokens.alice!, 'secret', { private: true });
  await createRepo(gh, tokens.alice!, 'demo');
  await addCollaborator(gh, tokens.alice!, 'alice', 'secret', 'carol', 'read');
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# Top secret\n' }, 'first');
  for (const repo of ['secret', 'demo']) await git(work, 'push', '-q', pushUrl(gh, 'alice', tokens.alice!, 'alice', repo), 'main');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('signed in on the web', () => {
  it('when alice signs in, then home lists her repositories and her private one reads as for her', async () => {
    const cookie = await signIn('alice');
    const home = await send('GET', '/', { cookie });
    expect(home.status).toBe(200);
    expect(home.html).toContain('href="/alice/secret"');
    expect(home.html).toContain('href="/alice/demo"');
    const secret = await send('GET', '/alice/secret', { cookie });
    expect(secret.status).toBe(200);
    expect(textOf(secret.html)).toContain('Top secret');
  });

  it('when someone who may not read it signs in, then the private repository answers exactly as a missing one; a collaborator reads it', async () => {
    const bob = await signIn('bob');
    for (const rest of ['', '/-/blob/main/README.md', '/-/commits/main', '/-/raw/main/README.md']) {
      const hidden = await send('GET', `/alice/secret${rest}`, { cookie: bob });
      const missing = await send('GET', `/alice/nothing${rest}`, { cookie: bob });
      expect([rest, hidden.status, hidden.html.replace(csrfOf(hidden.html), '')]).toEqual([rest, 404, missing.html.replace(csrfOf(missing.html), '')]);
    }
    const carol = await signIn('carol');
    expect((await send('GET', '/alice/secret', { cookie: carol })).status).toBe(200);
    expect((await send('GET', '/', { cookie: carol })).html).toContain('href="/alice/secret"');
  });

  it('when the sessions page is read, then this session shows with the browser it was made from (the web vouched for it)', async () => {
    const cookie = await signIn('alice');
    const page = await send('GET', '/-/settings/sessions', { cookie });
    expect(page.status).toBe(200);
    expect(textOf(page.html)).toContain(`${BROWSER} this browser`);
  });

  it('when a token is made on the web, then it works on the API with the scopes chosen, and the page after the redirect shows it once', async () => {
    const cookie = await signIn('alice');
    const page = await send('GET', '/-/settings/tokens', { cookie });
    const made = await send('POST', '/-/settings/tokens', { cookie, form: { csrf: csrfOf(page.html), name: 'laptop', scopes: 'read', expires_in_days: '7' } });
    expect([made.status, made.location]).toEqual([303, '/-/settings/tokens']);
    const notice = cookiePair(made.cookies.find((c) => c.startsWith('githost_notice=')));
    const shown = await send('GET', '/-/settings/tokens', { cookie: `${cookie}; ${notice}` });
    const token = /id="new-token" type="text" readonly value="([^"]+)"/.exec(shown.html)![1]!;
    // The answer that shows it forgets it: the browser then sends no notice.
    expect(shown.cookies.filter((c) => c.startsWith('githost_notice='))).toEqual(['githost_notice=; Path=/-/settings/tokens; HttpOnly; SameSite=Lax; Max-Age=0']);
    expect([made.location, made.html, notice].some((s) => s?.includes(token))).toBe(false);
    expect(await api(gh, 'GET', '/api/user', { token })).toMatchObject({ status: 200, body: { username: 'alice' } });
    expect((await api(gh, 'POST', '/api/repos', { token, body: { name: 'nope' } })).status).toBe(403);
  });

  it('when a repository is created on the web, then it exists and its page says it is empty', async () => {
    const cookie = await signIn('bob');
    const form = await send('GET', '/-/new', { cookie });
    const res = await send('POST', '/-/new', { cookie, form: { csrf: csrfOf(form.html), name: 'fresh', description: 'made on the web', default_branch: 'main', private: 'true' } });
    expect([res.status, res.location]).toEqual([303, '/bob/fresh']);
    expect(await api(gh, 'GET', '/api/repos/bob/fresh', { token: tokens.bob! })).toMatchObject({ status: 200, body: { private: true, description: 'made on the web' } });
    expect(textOf((await send('GET', '/bob/fresh', { cookie })).html)).toContain('This repository is empty');
    expect((await send('GET', '/bob/fresh')).status).toBe(404);
  });

  it('when the password is changed on the web, then a wrong current one is refused and the new one signs in', async () => {
    const cookie = await signIn('carol');
    const csrf = csrfOf((await send('GET', '/-/settings', { cookie })).html);
    const wrong = await send('POST', '/-/settings/password', { cookie, form: { csrf, current_password: 'not it', password: 'carol has a new password', confirm: 'carol has a new password' } });
    expect([wrong.status, textOf(wrong.html).includes('Current password is incorrect')]).toEqual([400, true]);
    const ok = await send('POST', '/-/settings/password', { cookie, form: { csrf, current_password: PASSWORDS.carol!, password: 'carol has a new password', confirm: 'carol has a new password' } });
    expect([ok.status, ok.location]).toEqual([303, '/-/settings?done=password']);
    PASSWORDS.carol = 'carol has a new password';
    await signIn('carol');
  });

  it('when alice signs out, then her session stops working on the API at once', async () => {
    const cookie = await signIn('alice');
    const home = await send('GET', '/', { cookie });
    const out = await send('POST', '/-/sign-out', { cookie, form: { csrf: csrfOf(home.html) } });
    expect([out.status, out.location]).toEqual([303, '/']);
    expect(out.cookies).toContain('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    expect((await api(gh, 'GET', '/api/user', { token: secretOf(cookie) })).status).toBe(401);
    expect((await send('GET', '/alice/secret', { cookie })).status).toBe(404);
  });

  it('when the password is wrong, then the sign-in form says so', async () => {
    const form = await send('GET', '/-/sign-in');
    const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession=')));
    const res = await send('POST', '/-/sign-in', { cookie: pre, form: { csrf: csrfOf(form.html), username: 'alice', password: 'wrong' } });
    expect(res.status).toBe(401);
    expect(textOf(res.html)).toContain('Invalid username or password.');
  });
});
