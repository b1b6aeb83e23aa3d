import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { encodeIdentity, verifyClientForwarding } from '@githost/identity';
import { cookiePair, csrfOf } from '@githost/test-support';
import { PASSWORDS, startAccountsApi, type AccountsApi } from './support/accounts-api.js';
import { SECRET, startWeb, type RunningWeb } from './support/web.js';

/** Sign-in, sign-out, settings and home against the real accounts service (services/web/README.md#sessions). */
let api: AccountsApi;
let web: RunningWeb['web'];
let base: string;

beforeAll(async () => {
  api = await startAccountsApi();
  ({ web, base } = await startWeb(api.url));
}, 60_000);

afterAll(async () => {
  await web?.stop();
  await api?.close();
});

beforeEach(() => {
  api.calls.length = 0;
});

interface Answer {
  status: number;
  html: string;
  location: string | null;
  cookies: string[];
}

async function get(path: string, cookie = ''): Promise<Answer> {
  const res = await fetch(base + path, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), cookies: res.headers.getSetCookie() };
}

async function post(path: string, form: Record<string, string | string[]>, cookie = ''): Promise<Answer> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) }, body: body.toString(), redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location'), cookies: res.headers.getSetCookie() };
}


/** The redirect after a form, followed as a browser does: with the one-time notice it set. The
 *  answer must clear it, so the browser's next view of the page is without it. */
async function followWithNotice(posted: Answer, cookie: string): Promise<Answer> {
  const notice = cookiePair(posted.cookies.find((c) => c.startsWith('githost_notice='))!);
  const res = await get(posted.location!, `${cookie}; ${notice}`);
  expect([res.status, res.cookies.some((c) => c.startsWith('githost_notice=;') && c.includes('Max-Age=0'))]).toEqual([200, true]);
  return res;
}

/** Signs alice (or another) in as a browser does; returns the cookie header. */
async function signIn(username: keyof typeof PASSWORDS = 'alice'): Promise<string> {
  const form = await get('/-/sign-in');
  const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession='))!);
  const res = await post('/-/sign-in', { csrf: csrfOf(form.html), username, password: PASSWORDS[username], next: '/-/settings' }, pre);
  expect([res.status, res.location]).toEqual([303, '/-/settings']);
  return cookiePair(res.cookies.find((c) => c.startsWith('githost_session='))!);
}

describe('sign in and out', () => {
  it('when the password is right, then the session secret is kept in an HttpOnly, SameSite=Lax cookie and the person lands where they were going', async () => {
    const form = await get('/-/sign-in?next=%2F-%2Fsettings');
    expect(form.status).toBe(200);
    expect(form.html).toContain('name="next" value="/-/settings"');
    const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession='))!);
    const res = await post('/-/sign-in', { csrf: csrfOf(form.html), username: 'alice', password: 'correct horse battery', next: '/-/settings' }, pre);
    expect([res.status, res.location]).toEqual([303, '/-/settings']);
    const session = res.cookies.find((c) => c.startsWith('githost_session='))!;
    expect(session).toMatch(/^githost_session=ghsess_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(await api.accepts(decodeURIComponent(cookiePair(session).slice('githost_session='.length)))).toBe(true);
    const settings = await get('/-/settings', cookiePair(session));
    expect(settings.status).toBe(200);
    expect(settings.html).toContain('Signed in as <strong>alice</strong>');
  });

  it('when the password is wrong, then the form says so and no session is made', async () => {
    const form = await get('/-/sign-in');
    const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession='))!);
    const res = await post('/-/sign-in', { csrf: csrfOf(form.html), username: 'alice', password: 'nope' }, pre);
    expect(res.status).toBe(401);
    expect(res.html).toContain('Invalid username or password.');
    expect(res.html).toContain('value="alice"');
    expect(res.cookies.some((c) => c.startsWith('githost_session='))).toBe(false);
  });

  it('when the sign-in form comes without the token of this browser, then it is refused before the API is asked', async () => {
    const form = await get('/-/sign-in');
    const res = await post('/-/sign-in', { csrf: csrfOf(form.html), username: 'alice', password: 'correct horse battery' }, 'githost_presession=another-browser');
    expect(res.status).toBe(403);
    expect(api.calls.filter((c) => c.path === '/api/sessions')).toEqual([]);
  });

  it('when the next page is another site, then sign-in goes home instead', async () => {
    const form = await get('/-/sign-in');
    const pre = cookiePair(form.cookies.find((c) => c.startsWith('githost_presession='))!);
    const res = await post('/-/sign-in', { csrf: csrfOf(form.html), username: 'alice', password: 'correct horse battery', next: '//evil.example/x' }, pre);
    expect([res.status, res.location]).toEqual([303, '/']);
  });

  it('when signing out, then the session ends on the server and the cookie is cleared', async () => {
    const cookie = await signIn();
    const page = await get('/', cookie);
    const res = await post('/-/sign-out', { csrf: csrfOf(page.html) }, cookie);
    expect([res.status, res.location]).toEqual([303, '/']);
    expect(res.cookies).toContain('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
    expect(api.calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/api/user/sessions/current']);
    expect(await api.accepts(decodeURIComponent(cookie.slice('githost_session='.length)))).toBe(false);
  });

  it('when the session is no longer accepted, then the page is shown anonymously and the cookie dropped', async () => {
    const res = await get('/', 'githost_session=expired-secret');
    expect(res.status).toBe(200);
    expect(res.html).toContain('href="/-/sign-in"');
    expect(res.cookies).toContain('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});

describe('account settings', () => {
  it('when a token is created with a name, scopes and an expiry, then it is shown once and listed afterwards without its secret', async () => {
    const cookie = await signIn();
    const page = await get('/-/settings/tokens', cookie);
    expect(page.html).not.toContain('value="admin"');
    const posted = await post('/-/settings/tokens', { csrf: csrfOf(page.html), name: 'ci <bot>', scopes: ['read', 'write'], expires_in_days: '30' }, cookie);
    expect([posted.status, posted.location, posted.html.includes('ghs_')]).toEqual([303, '/-/settings/tokens', false]);
    const res = await followWithNotice(posted, cookie);
    const secret = /id="new-token" type="text" readonly value="(ghs_[A-Za-z0-9_-]+)"/.exec(res.html)?.[1];
    expect(secret).toBeDefined();
    expect(res.html).toContain('ci &lt;bot>');
    const created = api.calls.find((c) => c.method === 'POST' && c.path === '/api/user/tokens')!.body as { name: string; scopes: string[]; expires_at: string };
    expect([created.name, created.scopes]).toEqual(['ci <bot>', ['read', 'write']]);
    expect(Math.round((Date.parse(created.expires_at) - Date.now()) / 86_400_000)).toBe(30);
    const later = await get('/-/settings/tokens', cookie);
    expect(later.html).not.toContain(secret!);
    expect(later.html).toContain('read, write');
  });

  it('when a token form has no scope or an expiry not offered, then it is refused with a message and nothing is made', async () => {
    const cookie = await signIn();
    const csrf = csrfOf((await get('/-/settings/tokens', cookie)).html);
    const none = await post('/-/settings/tokens', { csrf, name: 'x', expires_in_days: '30' }, cookie);
    const odd = await post('/-/settings/tokens', { csrf, name: 'x', scopes: 'read', expires_in_days: '9999' }, cookie);
    expect([none.status, odd.status]).toEqual([400, 400]);
    expect(none.html).toContain('Choose at least one scope.');
    expect(api.calls.filter((c) => c.method === 'POST' && c.path === '/api/user/tokens')).toEqual([]);
  });

  it('when a token is revoked, then the API is told and the page says so', async () => {
    const cookie = await signIn();
    const csrf = csrfOf((await get('/-/settings/tokens', cookie)).html);
    await post('/-/settings/tokens', { csrf, name: 'gone', scopes: 'read', expires_in_days: 'never' }, cookie);
    const id = (await api.tokensOf('alice')).find((t) => t.name === 'gone')!.id;
    const res = await post(`/-/settings/tokens/${id}/revoke`, { csrf }, cookie);
    expect([res.status, res.location]).toEqual([303, '/-/settings/tokens?done=token-revoked']);
    expect((await api.tokensOf('alice')).some((t) => t.id === id)).toBe(false);
    expect((await get(res.location!, cookie)).html).toContain('The token has been revoked.');
  });

  it('when another session is listed and revoked, then it ends; this browser is marked and keeps its own', async () => {
    // Signed in elsewhere, by a browser whose name is markup.
    const other = await api.signIn('alice', 'Firefox <script>');
    const cookie = await signIn();
    const page = await get('/-/settings/sessions', cookie);
    expect(page.html).toContain('this browser');
    expect(page.html).toContain('Firefox &lt;script>');
    const otherId = await api.sessionIdOf(other);
    const res = await post(`/-/settings/sessions/${otherId}/revoke`, { csrf: csrfOf(page.html) }, cookie);
    expect([res.status, res.location]).toEqual([303, '/-/settings/sessions?done=session-revoked']);
    expect(await api.accepts(other)).toBe(false);
    expect((await get('/', cookie)).html).toContain('Your repositories');
  });

  it('when the password is changed, then the new ones must match and the API decides on the current one', async () => {
    const cookie = await signIn();
    const csrf = csrfOf((await get('/-/settings', cookie)).html);
    const mismatch = await post('/-/settings/password', { csrf, current_password: 'correct horse battery', password: 'new password 1', confirm: 'new password 2' }, cookie);
    expect([mismatch.status, mismatch.html.includes('The new passwords do not match.')]).toEqual([400, true]);
    const wrong = await post('/-/settings/password', { csrf, current_password: 'nope', password: 'new password 1', confirm: 'new password 1' }, cookie);
    expect([wrong.status, wrong.html.includes('Current password is incorrect')]).toEqual([400, true]);
    const ok = await post('/-/settings/password', { csrf, current_password: 'correct horse battery', password: 'new password 1', confirm: 'new password 1' }, cookie);
    expect([ok.status, ok.location]).toEqual([303, '/-/settings?done=password']);
    expect((await api.request('POST', '/api/sessions', undefined, { username: 'alice', password: 'new password 1' })).status).toBe(201);
    expect((await api.request('PUT', '/api/user/password', await api.signInWith('alice', 'new password 1'), { current_password: 'new password 1', password: PASSWORDS.alice })).status).toBe(204);
  });

  it('when a form carries the token of another session, then it is refused and nothing changes', async () => {
    const a = await signIn();
    const b = await signIn();
    const csrfOfA = csrfOf((await get('/-/settings/tokens', a)).html);
    const res = await post('/-/settings/tokens', { csrf: csrfOfA, name: 'x', scopes: 'read', expires_in_days: '7' }, b);
    expect(res.status).toBe(403);
    expect(res.html).toContain('This form has expired.');
    expect(api.calls.filter((c) => c.method === 'POST' && c.path === '/api/user/tokens')).toEqual([]);
  });

  it('when a form is larger than the limit, then it is refused with a page, not an error trace', async () => {
    const cookie = await signIn();
    const res = await post('/-/new', { csrf: 'x', name: 'x'.repeat(70 * 1024) }, cookie);
    expect(res.status).toBe(413);
    expect(res.html).toContain('The form is too large.');
  });
});

describe('site admin: a user\'s tokens', () => {
  const issued = () => api.calls.filter((c) => c.method === 'POST' && c.path.startsWith('/api/admin/users/'));

  it('when a site admin issues a token for a user, then the API is asked with the form\'s fields and the secret is shown once, then only listed', async () => {
    const cookie = await signIn('root');
    const page = await get('/-/admin/users/alice', cookie);
    expect(page.status).toBe(200);
    // alice is no site admin: the API would refuse her the admin scope, so it is not offered.
    expect(page.html).toContain('action="/-/admin/users/alice/tokens"');
    expect(page.html).not.toContain('value="admin"');
    expect((await get('/-/admin/users/root', cookie)).html).toContain('name="scopes" value="admin"');
    const posted = await post('/-/admin/users/alice/tokens', { csrf: csrfOf(page.html), name: 'deploy <key>', scopes: ['read', 'write'], expires_in_days: '90' }, cookie);
    expect([posted.status, posted.location, posted.html.includes('ghs_')]).toEqual([303, '/-/admin/users/alice', false]);
    const res = await followWithNotice(posted, cookie);
    const secret = /id="new-token" type="text" readonly value="(ghs_[A-Za-z0-9_-]+)"/.exec(res.html)?.[1];
    expect(secret).toBeDefined();
    expect(res.html).toContain('The new token <strong>deploy &lt;key></strong> of <strong>alice</strong>. Copy it now');
    const [call] = issued();
    const body = call!.body as { name: string; scopes: string[]; expires_at: string };
    expect([call!.path, call!.credential === undefined, body.name, body.scopes]).toEqual(['/api/admin/users/alice/tokens', false, 'deploy <key>', ['read', 'write']]);
    expect(Math.round((Date.parse(body.expires_at) - Date.now()) / 86_400_000)).toBe(90);
    expect((await api.tokensOf('alice')).filter((t) => t.name === 'deploy <key>').map((t) => [t.name, t.scopes])).toEqual([['deploy <key>', ['read', 'write']]]);
    const reopened = await get('/-/admin/users/alice/tokens', cookie);
    expect([reopened.status, reopened.location]).toEqual([302, '/-/admin/users/alice']);
    const later = await get('/-/admin/users/alice', cookie);
    expect(later.html).not.toContain(secret!);
    expect(later.html).toContain('deploy &lt;key>');
  });

  it('when the form is incomplete or the API refuses it, then the page says why and keeps what was typed; an unknown user is the 404 page', async () => {
    const cookie = await signIn('root');
    const csrf = csrfOf((await get('/-/admin/users/alice', cookie)).html);
    const none = await post('/-/admin/users/alice/tokens', { csrf, name: 'ci', expires_in_days: '7' }, cookie);
    expect([none.status, none.html.includes('Choose at least one scope.'), issued()]).toEqual([400, true, []]);
    // The admin scope posted for a user who is no site admin: the API's 400, shown in the form.
    const refused = await post('/-/admin/users/alice/tokens', { csrf, name: 'too much', scopes: 'admin', expires_in_days: 'never' }, cookie);
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('The &quot;admin&quot; scope is only for site admins');
    expect(refused.html).toContain('id="token-name" name="name" type="text" maxlength="100" required value="too much"');
    expect(refused.html).toContain('<option value="never" selected>');
    const missing = await post('/-/admin/users/nobody/tokens', { csrf, name: 'x', scopes: 'read', expires_in_days: '7' }, cookie);
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('There is nothing here, or you do not have access to it.');
    expect(issued().map((c) => c.path)).toEqual(['/api/admin/users/alice/tokens', '/api/admin/users/nobody/tokens']);
    expect((await api.tokensOf('alice')).some((t) => t.name === 'too much')).toBe(false);
  });

  it('when someone who is no site admin posts the form, or a form without this session\'s token, then nothing is issued', async () => {
    const alice = await signIn();
    const root = await signIn('root');
    const asAlice = await post('/-/admin/users/alice/tokens', { csrf: csrfOf((await get('/-/settings/tokens', alice)).html), name: 'x', scopes: 'read', expires_in_days: '7' }, alice);
    expect(asAlice.status).toBe(404);
    const foreign = await post('/-/admin/users/alice/tokens', { csrf: csrfOf((await get('/-/settings/tokens', alice)).html), name: 'x', scopes: 'read', expires_in_days: '7' }, root);
    expect([foreign.status, foreign.html.includes('This form has expired.')]).toEqual([403, true]);
    expect(issued()).toEqual([]);
  });
});

describe('home and new repository', () => {
  it('when signed in, then home lists own and shared repositories and recent activity, escaped', async () => {
    const cookie = await signIn();
    const res = await get('/', cookie);
    expect(res.status).toBe(200);
    expect(res.html).toContain('href="/alice/demo"');
    expect(res.html).toContain('href="/bob/shared"');
    expect(res.html).toContain('Mine &lt;b>');
    expect(res.html).toContain('Merge request opened');
    expect(res.html).toContain('“Fix &lt;script>”');
  });

  it('when a repository is created, then the person is taken to it; when the name is taken, then the form says so', async () => {
    const cookie = await signIn();
    const csrf = csrfOf((await get('/-/new', cookie)).html);
    const made = await post('/-/new', { csrf, name: 'fresh', description: '', default_branch: 'main' }, cookie);
    expect([made.status, made.location]).toEqual([303, '/alice/fresh']);
    expect(api.calls.find((c) => c.method === 'POST' && c.path === '/api/repos')!.body).toEqual({ name: 'fresh', private: false, default_branch: 'main' });
    const taken = await post('/-/new', { csrf, name: 'taken', private: 'true' }, cookie);
    expect(taken.status).toBe(409);
    expect(taken.html).toContain('Repository already exists');
    expect(taken.html).toMatch(/name="private" value="true" checked/);
  });
});

describe('errors as pages', () => {
  it('when the API fails inside, then the page is a 500 that names no internals; when it is unavailable, then a 503 that says so', async () => {
    const broken = await get('/broken');
    expect([broken.status, broken.html.includes('Something went wrong'), broken.html.includes('10.0.0.7'), broken.html.includes('pg:')]).toEqual([500, true, false, false]);
    const down = await get('/down');
    expect([down.status, down.html.includes('The service is unavailable right now. Try again shortly.')]).toEqual([503, true]);
  });

  it('when a user or path does not exist, then the one 404 page answers, as HTML with the security headers', async () => {
    const res = await fetch(`${base}/nobody`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('x-content-type-options')]).toEqual([404, 'text/html; charset=utf-8', 'nosniff']);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await res.text()).toContain('There is nothing here, or you do not have access to it.');
  });
});

describe('client forwarding', () => {
  it('when the gateway signed the browser into the page request, then every API call vouches for that browser; a request from elsewhere vouches for no one', async () => {
    const identity = encodeIdentity({ principal: null, repo: null, request_id: 'r1', issued_at: Date.now(), client: { address: '203.0.113.9', user_agent: 'Browser/1.0' } }, SECRET);
    await fetch(`${base}/-/sign-in`, { headers: identity });
    const form = await fetch(`${base}/-/sign-in`, { headers: identity });
    const pre = cookiePair(form.headers.getSetCookie().find((c) => c.startsWith('githost_presession='))!);
    await fetch(`${base}/-/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...identity, 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
      body: new URLSearchParams({ csrf: csrfOf(await form.text()), username: 'alice', password: 'correct horse battery' }).toString(),
    });
    const signInCall = api.calls.find((c) => c.path === '/api/sessions')!;
    expect(verifyClientForwarding(signInCall.headers, SECRET)).toEqual({ address: '203.0.113.9', user_agent: 'Browser/1.0' });
    api.calls.length = 0;
    await get('/', await signIn());
    expect(api.calls.map((c) => c.headers['x-githost-client-signature'])).toEqual(api.calls.map(() => undefined));
  });
});

describe('cookies on an https site', () => {
  it('when PUBLIC_URL is https, then the session cookie is Secure', async () => {
    const secure = await startWeb(api.url, { PUBLIC_URL: 'https://git.example.com' });
    try {
      const form = await fetch(`${secure.base}/-/sign-in`);
      const pre = form.headers.getSetCookie().find((c) => c.startsWith('githost_presession='))!;
      expect(pre).toMatch(/; Secure$/);
      const res = await fetch(`${secure.base}/-/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiePair(pre) },
        body: new URLSearchParams({ csrf: csrfOf(await form.text()), username: 'alice', password: 'correct horse battery' }).toString(),
      });
      expect(res.headers.getSetCookie().find((c) => c.startsWith('githost_session='))).toMatch(/; Secure$/);
    } finally {
      await secure.web.stop();
    }
  });
});
