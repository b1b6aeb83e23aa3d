import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import * as oidc from 'openid-client';
import { launchBrowser, seriousAxeViolations, type Browser, type BrowserContext, type Page } from '@githost/test-support/browser';
import { api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';
import { signInPage } from './support/web-session.js';

/**
 * docs/decisions/oauth2-provider.md end to end: a relying party built on the real `openid-client`
 * signs kim in through githost in Debian's chromium (sign-in, the consent page naming the
 * application, Approve), verifies the ID token against the JWKS, reads userinfo, uses the access
 * token for `git clone` and the API, refreshes, revokes; and the refusals: a wrong redirect URI,
 * a reused code, a code for another client, Deny, and Revoke on the settings page.
 */
let gh: TestGithost;
let kim: TestUser;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let rp: Server;
let callbackBase: string;
/** The issuer is PUBLIC_URL (`http://localhost:<port>`); requests go to 127.0.0.1, as the rest of the e2e tests'. */
let issuer: URL;
let app: { client_id: string; client_secret: string };
let other: { client_id: string; client_secret: string };

const PASSWORD = 'kim has a long password';
const toLoopback = (url: string) => url.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:');
const loopbackFetch: oidc.CustomFetch = (url, options) => fetch(toLoopback(url), options as RequestInit);

async function relyingParty(client: { client_id: string; client_secret: string }): Promise<oidc.Configuration> {
  const config = await oidc.discovery(issuer, client.client_id, client.client_secret, oidc.ClientSecretBasic(client.client_secret), {
    execute: [oidc.allowInsecureRequests],
    [oidc.customFetch]: loopbackFetch,
  });
  // Verifies the ID token's signature against the provider's JWKS, not only its claims.
  oidc.enableNonRepudiationChecks(config);
  return config;
}

/**
 * Starts an authorization in the browser; resolves with the URL the browser was sent back to.
 * `consented`: whether the consent page was shown and answered (a remembered grant skips it).
 */
async function authorize(config: oidc.Configuration, choice: 'approve' | 'deny', extra: Record<string, string> = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${callbackBase}/callback`,
    scope: 'openid profile email read',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...extra,
  });
  await page.goto(toLoopback(url.href));
  if (new URL(page.url()).pathname === '/-/sign-in') {
    await page.fill('#username', 'kim');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/-/oauth/authorize/') || u.href.startsWith(callbackBase)), page.click('form.stack button[type=submit]')]);
  }
  if (page.url().startsWith(callbackBase)) return { callback: new URL(page.url()), verifier, state, heading: null, asked: [], violations: [], consented: false };
  const heading = await page.textContent('h1');
  const violations = await seriousAxeViolations(page);
  const asked = await page.locator('ul[aria-label="What the application asks for"] li').allTextContents();
  await Promise.all([page.waitForURL((u) => u.href.startsWith(callbackBase)), page.click(`button[value=${choice}]`)]);
  return { callback: new URL(page.url()), verifier, state, heading, asked, violations, consented: true };
}

const clone = (token: string) => gitResult(makeWorkdir(), 'clone', '-q', `http://oauth2:${encodeURIComponent(token)}@127.0.0.1:${gh.port}/kim/demo.git`, 'demo');

beforeAll(async () => {
  gh = await startTestGithost();
  issuer = new URL(`http://localhost:${gh.port}`);
  kim = await createUser(gh, 'kim');
  await api(gh, 'PUT', '/api/admin/users/kim/password', { token: gh.adminToken, body: { password: PASSWORD } });
  await createRepo(gh, kim.token, 'demo', { private: true });
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# demo\n' }, 'First commit');
  await git(work, 'push', '-q', pushUrl(gh, 'kim', kim.token, 'kim', 'demo'), 'HEAD:refs/heads/main');

  // The relying party's redirect URI: answers every callback with a plain page.
  rp = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in'));
  await new Promise<void>((resolve) => rp.listen(0, '127.0.0.1', resolve));
  callbackBase = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;

  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await new Promise((resolve) => (rp ? rp.close(resolve) : resolve(undefined)));
  await gh?.stop();
});

describe('githost as an OpenID Connect provider, driven by openid-client and chromium', () => {
  it('when kim registers an application on Settings → Applications, then its secret is shown once and it is listed', async () => {
    await signInPage(page, { url: toLoopback(issuer.href).replace(/\/$/, '') }, 'kim', PASSWORD);
    await page.goto(`http://127.0.0.1:${gh.port}/-/settings/applications`);
    await page.fill('#app-name', 'Woodpecker');
    await page.fill('#app-redirect-uris', `${callbackBase}/callback`);
    await Promise.all([page.waitForURL((u) => u.pathname === '/-/settings/applications'), page.click('button:has-text("Create application")')]);
    app = { client_id: await page.inputValue('#new-client-id'), client_secret: await page.inputValue('#new-client-secret') };
    expect(app.client_secret).toMatch(/^gto_/);
    await page.reload();
    expect(await page.locator('#new-client-secret').count()).toBe(0);
    expect(await page.textContent('main')).toContain(app.client_id);

    const made = await api(gh, 'POST', '/api/v1/user/applications/oauth2', { token: kim.token, body: { name: 'Other', redirect_uris: [`${callbackBase}/callback`] } });
    expect(made.status).toBe(201);
    other = { client_id: made.body.client_id, client_secret: made.body.client_secret };
  }, 60_000);

  it('when the relying party discovers githost, then the issuer, endpoints and JWKS are served at Gitea paths', async () => {
    const metadata = (await relyingParty(app)).serverMetadata();
    expect(metadata.issuer).toBe(issuer.href.replace(/\/$/, ''));
    expect(new URL(metadata.authorization_endpoint!).pathname).toBe('/login/oauth/authorize');
    expect(new URL(metadata.token_endpoint!).pathname).toBe('/login/oauth/access_token');
    expect(new URL(metadata.userinfo_endpoint!).pathname).toBe('/login/oauth/userinfo');
    expect(new URL(metadata.jwks_uri!).pathname).toBe('/login/oauth/keys');
    const jwks = await (await fetch(`http://127.0.0.1:${gh.port}/login/oauth/keys`)).json();
    expect(jwks).toEqual({ keys: [expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) })] });
  });

  it('when kim signs in and approves, then the code gives a verified ID token, userinfo, and an access token that clones and calls the API; refresh rotates; revocation ends it', async () => {
    const config = await relyingParty(app);
    const { callback, verifier, state, heading, asked, violations } = await authorize(config, 'approve');
    expect(heading).toContain('Woodpecker');
    expect(violations).toEqual([]);
    expect(asked.join('\n')).toContain('(read)');
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ sub: kim.id, iss: config.serverMetadata().issuer, aud: app.client_id });

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, kim.id);
    expect(userinfo).toMatchObject({ sub: kim.id, preferred_username: 'kim', name: 'kim', email: 'kim@example.com' });

    expect((await clone(tokens.access_token)).code).toBe(0);
    expect((await api(gh, 'GET', '/api/user', { token: tokens.access_token })).body).toMatchObject({ username: 'kim' });
    expect((await api(gh, 'GET', '/api/repos/kim/demo', { token: tokens.access_token })).status).toBe(200);
    // Granted `read`: a write is refused.
    expect((await api(gh, 'POST', '/api/repos', { token: tokens.access_token, body: { name: 'nope' } })).status).toBe(403);

    // A code is good once (RFC 6749 §4.1.2).
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })).rejects.toMatchObject({ error: 'invalid_grant' });

    const fresh = await (async () => {
      // The reuse revoked the grant's tokens (RFC 6749 §4.1.2); a new sign-in gives new ones.
      const again = await authorize(config, 'approve');
      return oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    })();
    // Asked of the provider itself: the gateway may still hold its answer for the token (5 s at most).
    await expect(oidc.fetchUserInfo(config, tokens.access_token, kim.id)).rejects.toBeDefined();

    const refreshed = await oidc.refreshTokenGrant(config, fresh.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(fresh.refresh_token);
    expect((await api(gh, 'GET', '/api/user', { token: refreshed.access_token })).body).toMatchObject({ username: 'kim' });
    await expect(oidc.refreshTokenGrant(config, fresh.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });

    const grantedAgain = await (async () => {
      const again = await authorize(config, 'approve');
      return oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    })();
    await oidc.tokenRevocation(config, grantedAgain.access_token);
    expect((await api(gh, 'GET', '/api/user', { token: grantedAgain.access_token })).status).toBe(401);
    expect((await clone(grantedAgain.access_token)).code).not.toBe(0);
  }, 120_000);

  it('when a redirect URI is not registered, then the browser is not sent anywhere and an error page is shown', async () => {
    const config = await relyingParty(app);
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: 'http://127.0.0.1:1/elsewhere', scope: 'openid', code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256' });
    const res = await page.goto(toLoopback(url.href));
    expect(res?.status()).toBe(400);
    expect(new URL(page.url()).port).toBe(String(gh.port));
    expect(await page.textContent('body')).toContain('redirect_uri');
  });

  it("when a code issued to one application is exchanged by another, then it is refused", async () => {
    const config = await relyingParty(app);
    const { callback, verifier, state } = await authorize(config, 'approve');
    const otherConfig = await relyingParty(other);
    await expect(oidc.authorizationCodeGrant(otherConfig, callback, { pkceCodeVerifier: verifier, expectedState: state })).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 60_000);

  it('when kim denies, then the application gets access_denied and no code', async () => {
    const config = await relyingParty(app);
    // Asking for more than kim granted before, so the consent page asks.
    const { callback, verifier, state, consented } = await authorize(config, 'deny', { scope: 'openid profile email read write' });
    expect(consented).toBe(true);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
    await expect(oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state })).rejects.toMatchObject({ error: 'access_denied' });
  }, 60_000);

  it('when kim signs in again with the same or fewer scopes, then no consent page: a code at once; more scopes ask again', async () => {
    const config = await relyingParty(app);
    // Approved once (the page may show if an earlier reuse of a code revoked the grant).
    await authorize(config, 'approve');
    for (const scope of ['openid profile email read', 'openid read']) {
      const again = await authorize(config, 'approve', { scope });
      expect([again.consented, again.heading]).toEqual([false, null]);
      const tokens = await oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
      expect(tokens.claims()).toMatchObject({ sub: kim.id, aud: app.client_id });
      expect((await api(gh, 'GET', '/api/user', { token: tokens.access_token })).body).toMatchObject({ username: 'kim' });
    }
    // Another application kim never approved asks.
    const first = await authorize(await relyingParty(other), 'approve');
    expect(first.consented).toBe(true);
  }, 120_000);

  it('when kim revokes the application on the settings page, then its tokens stop working at once, and the next sign-in asks again', async () => {
    const config = await relyingParty(app);
    const again = await authorize(config, 'approve');
    const tokens = await oidc.authorizationCodeGrant(config, again.callback, { pkceCodeVerifier: again.verifier, expectedState: again.state });
    expect((await api(gh, 'GET', '/api/user', { token: tokens.access_token })).status).toBe(200);
    await page.goto(`http://127.0.0.1:${gh.port}/-/settings/applications`);
    await Promise.all([page.waitForURL((u) => u.search.includes('done=authorization-revoked')), page.click('button:has-text("Revoke Woodpecker")')]);
    expect((await api(gh, 'GET', '/api/user', { token: tokens.access_token })).status).toBe(401);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Revoking forgot the consent: the page asks again.
    const asked = await authorize(config, 'approve');
    expect([asked.consented, asked.heading]).toEqual([true, expect.stringContaining('Woodpecker')]);
  }, 60_000);
});
