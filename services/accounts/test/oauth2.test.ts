import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { callUnary } from '@githost/grpc';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { encodeIdentity, type Principal } from '@githost/identity';
import type { accounts } from '@githost/protos';
import { ADMIN_TOKEN, Client, PUBLIC_URL, SECRET, startAccounts, type Backend, type Harness } from './harness.js';

/**
 * docs/decisions/oauth2-provider.md against the real service and database: oidc-provider's
 * records in accounts' table, the signing key kept across a restart, an application's
 * authorization code exchanged with PKCE, its access token accepted by Authenticate until revoked.
 */
describe.each<Backend>(['postgres', 'pglite'])('OAuth2 provider on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;
  let kim: { id: string; client: Client };

  const authenticate = (token: string) => callUnary<accounts.AuthenticateRequest, accounts.AuthenticateResponse__Output>(h.grpc, h.grpc.Authenticate, { token });

  /** A request as the gateway forwards it: signed identity (anonymous unless given), headers as sent. */
  const send = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string; principal?: Principal | null } = {}) =>
    fetch(h.base + path, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...encodeIdentity({ principal: init.principal ?? null, repo: null, request_id: 'test', issued_at: Date.now() }, SECRET), ...init.headers },
      body: init.body,
    });

  /** kim at the web: a principal signed for a session, as the gateway signs one. */
  const kimSession = (): Principal => ({ user_id: kim.id, username: 'kim', email: 'kim@example.test', is_admin: false, session_id: 'session-1' });

  const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]!).join('; ');

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
    kim = await admin.createUser('kim');
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when discovery is asked, then it names the issuer and Gitea paths, and the JWKS key stays the same across a restart', async () => {
    const discovery = (await (await send('/.well-known/openid-configuration')).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({ issuer: PUBLIC_URL, code_challenge_methods_supported: ['S256'] });
    expect(String(discovery.authorization_endpoint)).toMatch(/\/login\/oauth\/authorize$/);
    expect(String(discovery.token_endpoint)).toMatch(/\/login\/oauth\/access_token$/);
    expect(String(discovery.jwks_uri)).toMatch(/\/login\/oauth\/keys$/);
    const keys = (await (await send('/login/oauth/keys')).json()) as { keys: { kid: string; kty: string; d?: string }[] };
    expect(keys.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
    expect(keys.keys[0]!.d).toBeUndefined();

    await h.service.stop();
    const restarted = await h.service.start();
    h.base = `http://127.0.0.1:${restarted.httpPort}`;
    const again = (await (await send('/login/oauth/keys')).json()) as { keys: { kid: string }[] };
    expect(again.keys.map((k) => k.kid)).toEqual(keys.keys.map((k) => k.kid));
    // The gRPC port moved with the restart.
    h.grpc.close();
    const { createAccountsClient } = await import('@githost/protos');
    h.grpc = createAccountsClient(`127.0.0.1:${restarted.grpcPort}`, SECRET);
  }, 60_000);

  it('when an application signs kim in with PKCE, then the code gives tokens, the access token authenticates with the granted scopes, and revoking ends it at once', async () => {
    const created = await kim.client.request('POST', '/api/v1/user/applications/oauth2', { name: 'CI', redirect_uris: ['http://ci.example.test/callback'], confidential_client: true });
    expect(created).toEqual({
      status: 201,
      body: { id: expect.any(Number), name: 'CI', client_id: expect.any(String), client_secret: expect.stringMatching(/^gto_/), redirect_uris: ['http://ci.example.test/callback'], confidential_client: true, skip_secondary_authorization: false, created: expect.any(String) },
    });
    const listed = await kim.client.request('GET', '/api/v1/user/applications/oauth2');
    expect(listed.body).toEqual([{ ...created.body, client_secret: '' }]);
    const { client_id, client_secret } = created.body as { client_id: string; client_secret: string };

    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({ client_id, redirect_uri: 'http://ci.example.test/callback', response_type: 'code', scope: 'openid profile email read', state: 'st4te', code_challenge: challenge, code_challenge_method: 'S256' });
    const start = await send(`/login/oauth/authorize?${query}`);
    expect(start.status).toBe(303);
    const consentPage = new URL(start.headers.get('location')!, PUBLIC_URL);
    expect(consentPage.pathname).toMatch(/^\/-\/oauth\/authorize\/[\w-]+$/);
    const uid = consentPage.pathname.split('/').pop()!;
    const browserCookies = cookiesOf(start);

    // The consent page's calls: only a session may answer, and the request names the application.
    expect((await kim.client.request('GET', `/api/user/oauth2/authorizations/${uid}`)).status).toBe(403);
    const shown = await send(`/api/user/oauth2/authorizations/${uid}`, { principal: kimSession() });
    expect(await shown.json()).toEqual({ uid, client: { client_id, name: 'CI' }, scopes: ['openid', 'profile', 'email', 'read'], redirect_uri: 'http://ci.example.test/callback', remembered: false });
    const answered = await send(`/api/user/oauth2/authorizations/${uid}`, { method: 'POST', principal: kimSession(), headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approve: true }) });
    const { redirect_to } = (await answered.json()) as { redirect_to: string };

    const resumed = await send(new URL(redirect_to).pathname, { headers: { cookie: browserCookies } });
    expect(resumed.status).toBe(303);
    const callback = new URL(resumed.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe('http://ci.example.test/callback');
    expect(callback.searchParams.get('state')).toBe('st4te');
    const code = callback.searchParams.get('code')!;

    const basic = `Basic ${Buffer.from(`${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret)}`).toString('base64')}`;
    const exchange = (body: Record<string, string>) =>
      send('/login/oauth/access_token', { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
    const tokenRes = await exchange({ grant_type: 'authorization_code', code, redirect_uri: 'http://ci.example.test/callback', code_verifier: verifier });
    expect(tokenRes.status).toBe(200);
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string; id_token: string; token_type: string; scope: string };
    expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String), id_token: expect.any(String) });


    const authenticated = await authenticate(tokens.access_token);
    expect(authenticated).toMatchObject({ user: { id: kim.id, username: 'kim' }, scopes: ['read'] });

    const userinfo = await send('/login/oauth/userinfo', { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await userinfo.json()).toEqual({ sub: kim.id, name: 'kim', preferred_username: 'kim', profile: `${PUBLIC_URL}/kim`, email: 'kim@example.test' });

    // docs/decisions/oauth2-provider.md#consent: a later sign-in asking for the same or fewer
    // scopes is remembered; one asking for more is asked again.
    const rememberedFor = async (scope: string) => {
      const again = await send(`/login/oauth/authorize?${new URLSearchParams({ client_id, redirect_uri: 'http://ci.example.test/callback', response_type: 'code', scope, code_challenge: challenge, code_challenge_method: 'S256' })}`);
      const againUid = new URL(again.headers.get('location')!, PUBLIC_URL).pathname.split('/').pop()!;
      return ((await (await send(`/api/user/oauth2/authorizations/${againUid}`, { principal: kimSession() })).json()) as { remembered: boolean }).remembered;
    };
    expect([await rememberedFor('openid profile email read'), await rememberedFor('openid read'), await rememberedFor('openid read write')]).toEqual([true, true, false]);

    const grants = await kim.client.request('GET', '/api/user/oauth2/grants');
    expect(grants.body).toEqual([{ client_id, name: 'CI', scopes: ['openid', 'profile', 'email', 'read'], granted_at: expect.any(String) }]);
    expect((await kim.client.request('DELETE', `/api/user/oauth2/grants/${client_id}`)).status).toBe(204);
    // Revoked: forgotten.
    expect(await rememberedFor('openid read')).toBe(false);
    await expect(authenticate(tokens.access_token)).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Authentication required' });
    expect((await exchange({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(400);
    expect((await kim.client.request('GET', '/api/user/oauth2/grants')).body).toEqual([]);
    // A code is good once (RFC 6749 §4.1.2); OAuth's own error body, not githost's.
    // A NUL in a form field or the Basic header names nothing (Postgres text cannot hold one): 4xx, never 5xx.
    expect((await exchange({ grant_type: 'authorization_code', code: 'a\0b', redirect_uri: 'http://ci.example.test/callback', code_verifier: verifier })).status).toBe(400);
    const nulClient = await send('/login/oauth/access_token', { method: 'POST', headers: { authorization: `Basic ${Buffer.from('a%00b:x').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=x' });
    expect(nulClient.status).toBe(400);
    const reused = await exchange({ grant_type: 'authorization_code', code, redirect_uri: 'http://ci.example.test/callback', code_verifier: verifier });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('when an application is created with bad fields, then it is 400 and nothing is stored; another user cannot see it', async () => {
    const bad = async (body: unknown) => (await kim.client.request('POST', '/api/v1/user/applications/oauth2', body)).body;
    expect(await bad({ name: '', redirect_uris: ['https://x.test/cb'] })).toEqual({ error: 'name is required' });
    expect(await bad({ name: 'a', redirect_uris: [] })).toEqual({ error: 'redirect_uris must be a non-empty array of URLs' });
    expect(await bad({ name: 'a', redirect_uris: ['javascript:alert(1)'] })).toEqual({ error: 'Redirect URI scheme not allowed: javascript:' });
    expect(await bad({ name: 'a', redirect_uris: ['https://x.test/cb#frag'] })).toEqual({ error: 'Redirect URI must not have a fragment: https://x.test/cb#frag' });
    expect(await bad({ name: 'a', redirect_uris: ['https://x.test/cb'], confidential_client: 'yes' })).toEqual({ error: 'confidential_client must be true or false' });

    const made = await kim.client.request('POST', '/api/v1/user/applications/oauth2', { name: 'Public', redirect_uris: ['http://127.0.0.1/cb'], confidential_client: false });
    expect(made.body).toMatchObject({ client_secret: '', confidential_client: false });
    const lee = await admin.createUser('lee');
    expect(await lee.client.request('GET', `/api/v1/user/applications/oauth2/${made.body.id}`)).toEqual({ status: 404, body: { error: 'OAuth2 application not found' } });
    expect((await lee.client.request('DELETE', `/api/v1/user/applications/oauth2/${made.body.id}`)).status).toBe(404);
    const patched = await kim.client.request('PATCH', `/api/v1/user/applications/oauth2/${made.body.id}`, { name: 'Renamed', confidential_client: true });
    expect(patched.body).toMatchObject({ name: 'Renamed', confidential_client: true, client_secret: expect.stringMatching(/^gto_/) });
    expect((await kim.client.request('DELETE', `/api/v1/user/applications/oauth2/${made.body.id}`)).status).toBe(204);
    expect((await kim.client.request('GET', `/api/v1/user/applications/oauth2/${made.body.id}`)).status).toBe(404);
  });

  it('when a public client asks for a code without PKCE, then it is refused with OAuth error in the redirect; with S256 it gets to the consent page', async () => {
    const made = await kim.client.request('POST', '/api/v1/user/applications/oauth2', { name: 'CLI', redirect_uris: ['http://127.0.0.1:9/cb'], confidential_client: false });
    const base = { client_id: made.body.client_id as string, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', scope: 'openid write' };
    const without = await send(`/login/oauth/authorize?${new URLSearchParams(base)}`);
    expect(without.status).toBe(303);
    const refused = new URL(without.headers.get('location')!);
    expect([refused.origin + refused.pathname, refused.searchParams.get('error')]).toEqual(['http://127.0.0.1:9/cb', 'invalid_request']);
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const withPkce = await send(`/login/oauth/authorize?${new URLSearchParams({ ...base, code_challenge: challenge, code_challenge_method: 'S256' })}`);
    expect(new URL(withPkce.headers.get('location')!, PUBLIC_URL).pathname).toMatch(/^\/-\/oauth\/authorize\//);
  });
});
