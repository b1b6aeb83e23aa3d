import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { rpc } from './rpc.js';
import { ADMIN_TOKEN, Client, SECRET, startAccounts, type Backend, type Harness } from './harness.js';
import { pgliteDir } from '../src/config.js';
import { openAccountsDatabase } from '../src/db/open.js';
import { createServer } from '../src/server.js';

const DAY = 24 * 3600_000;
const INVALID = { status: 401, body: { error: 'Invalid username or password' } };
const UNAUTHENTICATED = { kind: 'unauthenticated', message: 'Authentication required' };
const FIREFOX = { address: '203.0.113.7', user_agent: 'Mozilla/5.0 Firefox/133.0' };

/** services/accounts/README.md#sessions, against the real service and database, with the service's clock in the
 *  test's hands (no test waits for an expiry). */
describe.each<Backend>(['postgres', 'pglite'])('passwords and sessions on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;
  let now = Date.parse('2026-01-05T10:00:00Z');

  const browser = (client = FIREFOX) => new Client(h, null, client);
  const signIn = (username: string, password: string, client = FIREFOX) => browser(client).requestWithHeaders('POST', '/api/sessions', { username, password });

  async function createUser(username: string, password?: string): Promise<string> {
    const res = await admin.request('POST', '/api/admin/users', { username, email: `${username}@example.test`, ...(password === undefined ? {} : { password }) });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  async function session(username: string, password: string, client = FIREFOX): Promise<{ id: string; client: Client }> {
    const res = await signIn(username, password, client);
    expect(res.status).toBe(201);
    return { id: res.body.id, client: new Client(h, res.body.secret, client) };
  }

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress, { clock: () => now });
    admin = new Client(h, ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when a user created with a password signs in, then the secret authenticates as her with all her scopes and the session is listed as current', async () => {
    const id = await createUser('pia', 'correct horse battery');
    const res = await signIn('PIA', 'correct horse battery');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      secret: expect.stringMatching(/^ghsess_[A-Za-z0-9_-]{43}$/),
      expires_at: new Date(now + 30 * DAY).toISOString(),
      idle_expires_at: new Date(now + 14 * DAY).toISOString(),
    });
    const auth = await rpc(h.grpc).authenticate({ token: res.body.secret });
    expect(auth).toMatchObject({ user: { id, username: 'pia' }, bootstrap_admin: false, scopes: ['read', 'write'], session_id: res.body.id, expires_at: new Date(now + 14 * DAY).toISOString() });
    const pia = new Client(h, res.body.secret, FIREFOX);
    expect(await pia.request('GET', '/api/user')).toEqual({ status: 200, body: { id, username: 'pia', email: 'pia@example.test', is_admin: false } });
    const listed = await pia.request('GET', '/api/user/sessions');
    expect(listed).toEqual({
      status: 200,
      body: [{ id: res.body.id, created_at: new Date(now).toISOString(), last_used_at: new Date(now).toISOString(), expires_at: new Date(now + 30 * DAY).toISOString(), idle_expires_at: new Date(now + 14 * DAY).toISOString(), user_agent: FIREFOX.user_agent, address: FIREFOX.address, current: true }],
    });
    // A token of hers sees the same session, not as current.
    const token = await admin.request('POST', '/api/admin/users/pia/tokens', {});
    const viaToken = await new Client(h, token.body.token).request('GET', '/api/user/sessions');
    expect(viaToken.body).toEqual([expect.objectContaining({ id: res.body.id, current: false })]);
  });

  it('when a site admin signs in, then the session carries the admin scope', async () => {
    await admin.request('POST', '/api/admin/users', { username: 'ada-admin', email: 'ada@example.test', is_admin: true, password: 'admin password 1' });
    const { client } = await session('ada-admin', 'admin password 1');
    expect((await rpc(h.grpc).authenticate({ token: client.token! })).scopes).toEqual(['read', 'write', 'admin']);
    expect((await client.request('GET', '/api/admin/users')).status).toBe(200);
  });

  it('when the password is wrong, the user unknown, suspended or without a password, then every answer is the same 401', async () => {
    await createUser('quinn', 'quinn password');
    await createUser('nopass');
    await createUser('susan', 'susan password');
    expect((await admin.request('PATCH', '/api/admin/users/susan', { suspended: true })).status).toBe(200);
    for (const [username, password] of [['quinn', 'wrong password'], ['nobody-here', 'quinn password'], ['nopass', 'anything at all'], ['susan', 'susan password'], ['bad/name', 'whatever1']]) {
      const res = await signIn(username!, password!, { address: '198.51.100.99', user_agent: 'curl/8' });
      expect({ status: res.status, body: res.body }).toEqual(INVALID);
    }
  });

  it('when a password breaks the policy or a field is missing, then 400 says what is wrong and never repeats it', async () => {
    const short = await admin.request('POST', '/api/admin/users', { username: 'shorty', email: 'shorty@example.test', password: 'seven77' });
    expect(short).toEqual({ status: 400, body: { error: 'password must be 8 to 1024 characters' } });
    expect((await admin.request('GET', '/api/admin/users?per_page=100')).body.map((u: { username: string }) => u.username)).not.toContain('shorty');
    await createUser('policy');
    expect(await admin.request('PUT', '/api/admin/users/policy/password', { password: 'x'.repeat(1025) })).toEqual({ status: 400, body: { error: 'password must be 8 to 1024 characters' } });
    expect(await admin.request('PUT', '/api/admin/users/policy/password', { password: 12345678 })).toEqual({ status: 400, body: { error: 'password must be a string' } });
    expect(await browser().request('POST', '/api/sessions', { username: 'policy' })).toEqual({ status: 400, body: { error: 'password is required' } });
    expect(await browser().request('POST', '/api/sessions', ['policy'])).toEqual({ status: 400, body: { error: 'Request body must be a JSON object' } });
    // Eight characters counted as characters, not bytes or UTF-16 units.
    expect(await admin.request('PUT', '/api/admin/users/policy/password', { password: '🔑🔑🔑🔑🔑🔑🔑🔑' })).toEqual({ status: 204, body: null });
    expect((await signIn('policy', '🔑🔑🔑🔑🔑🔑🔑🔑')).status).toBe(201);
  });

  it('when a site admin sets a password, then it works, the old one does not, and every session of the user ends; others get 403', async () => {
    await createUser('reset', 'first password');
    const { client: before } = await session('reset', 'first password');
    expect(await admin.request('PUT', '/api/admin/users/reset/password', { password: 'second password' })).toEqual({ status: 204, body: null });
    await expect(rpc(h.grpc).authenticate({ token: before.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await signIn('reset', 'first password')).status).toBe(401);
    const { client: after } = await session('reset', 'second password');
    expect(await after.request('PUT', '/api/admin/users/reset/password', { password: 'third password' })).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await admin.request('PUT', '/api/admin/users/nobody-at-all/password', { password: 'third password' })).toEqual({ status: 404, body: { error: 'User not found' } });
  });

  it('when a user changes her password, then a wrong current one is 403, and the right one ends her other sessions but not this one', async () => {
    await createUser('rita', 'old password');
    const { client: laptop } = await session('rita', 'old password');
    const { client: phone } = await session('rita', 'old password', { address: '198.51.100.2', user_agent: 'Phone' });
    expect(await laptop.request('PUT', '/api/user/password', { current_password: 'not it at all', password: 'new password' })).toEqual({ status: 403, body: { error: 'Current password is incorrect' } });
    expect(await laptop.request('PUT', '/api/user/password', { current_password: 'old password', password: 'short' })).toEqual({ status: 400, body: { error: 'password must be 8 to 1024 characters' } });
    expect(await laptop.request('PUT', '/api/user/password', { current_password: 'old password', password: 'new password' })).toEqual({ status: 204, body: null });
    await expect(rpc(h.grpc).authenticate({ token: phone.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await laptop.request('GET', '/api/user')).status).toBe(200);
    expect((await signIn('rita', 'old password')).status).toBe(401);
    expect((await signIn('rita', 'new password')).status).toBe(201);
    await createUser('tokenonly');
    const token = await admin.request('POST', '/api/admin/users/tokenonly/tokens', {});
    expect(await new Client(h, token.body.token).request('PUT', '/api/user/password', { current_password: 'whatever1', password: 'new password' })).toEqual({ status: 403, body: { error: 'This account has no password yet; a site admin sets the first one' } });
  });

  it('when sessions are revoked, then only one\'s own can be, "current" signs out the caller, and the secret stops working', async () => {
    await createUser('sam', 'sam password');
    await createUser('tom', 'tom password');
    const { id: first, client: sam } = await session('sam', 'sam password');
    const { id: second, client: sam2 } = await session('sam', 'sam password');
    const { client: tom } = await session('tom', 'tom password');
    expect(await tom.request('DELETE', `/api/user/sessions/${first}`)).toEqual({ status: 404, body: { error: 'Session not found' } });
    expect(await sam.request('DELETE', '/api/user/sessions/not%ZZ')).toEqual({ status: 404, body: { error: 'Session not found' } });
    expect(await sam.request('DELETE', `/api/user/sessions/${second}`)).toEqual({ status: 204, body: null });
    await expect(rpc(h.grpc).authenticate({ token: sam2.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await sam.request('GET', '/api/user/sessions')).body.map((s: { id: string }) => s.id)).toEqual([first]);
    expect(await sam.request('DELETE', '/api/user/sessions/current')).toEqual({ status: 204, body: null });
    await expect(rpc(h.grpc).authenticate({ token: sam.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    const token = await admin.request('POST', '/api/admin/users/tom/tokens', {});
    expect(await new Client(h, token.body.token).request('DELETE', '/api/user/sessions/current')).toEqual({
      status: 400,
      body: { error: 'This request was not made with a session; DELETE /api/user/sessions/current signs out a session' },
    });
  });

  it('when a session goes unused past the idle timeout, then it ends; used, it slides, but never past 30 days', async () => {
    await createUser('ida', 'ida password');
    const { client: idle } = await session('ida', 'ida password');
    const { client: busy } = await session('ida', 'ida password');
    const start = now;
    now = start + 13 * DAY;
    const touched = await rpc(h.grpc).authenticate({ token: busy.token! });
    expect(touched.expires_at).toBe(new Date(start + 27 * DAY).toISOString());
    now = start + 14 * DAY;
    await expect(rpc(h.grpc).authenticate({ token: idle.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await busy.request('GET', '/api/user')).status).toBe(200);
    now = start + 26 * DAY;
    // The idle expiry is capped by the absolute one.
    expect((await rpc(h.grpc).authenticate({ token: busy.token! })).expires_at).toBe(new Date(start + 30 * DAY).toISOString());
    now = start + 30 * DAY - 1;
    expect((await busy.request('GET', '/api/user')).status).toBe(200);
    now = start + 30 * DAY;
    await expect(rpc(h.grpc).authenticate({ token: busy.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    const { client: fresh } = await session('ida', 'ida password');
    expect((await fresh.request('GET', '/api/user/sessions')).body).toHaveLength(1);
  });

  it('when a user is suspended, then her sessions end and unsuspending does not bring them back; deleting her removes them', async () => {
    await createUser('vera', 'vera password');
    const { client: vera } = await session('vera', 'vera password');
    expect((await admin.request('PATCH', '/api/admin/users/vera', { suspended: true })).status).toBe(200);
    await expect(rpc(h.grpc).authenticate({ token: vera.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    expect((await admin.request('PATCH', '/api/admin/users/vera', { suspended: false })).status).toBe(200);
    await expect(rpc(h.grpc).authenticate({ token: vera.token! })).rejects.toMatchObject(UNAUTHENTICATED);
    const { client: again } = await session('vera', 'vera password');
    expect((await admin.request('DELETE', '/api/admin/users/vera')).status).toBe(204);
    await expect(rpc(h.grpc).authenticate({ token: again.token! })).rejects.toMatchObject(UNAUTHENTICATED);
  });

  it('when an account has 10 failures in 15 minutes, then even the right password is 429 with Retry-After until the first one is 15 minutes old', async () => {
    await createUser('locked', 'locked password');
    const start = now;
    for (let i = 0; i < 10; i++) {
      now = start + i * 1000;
      expect((await signIn('locked', `wrong ${i} password`, { address: `192.0.2.${i + 1}`, user_agent: 'x' })).status).toBe(401);
    }
    now = start + 60_000;
    const refused = await signIn('LOCKED', 'locked password');
    expect({ status: refused.status, body: refused.body, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 429, body: { error: 'Too many failed sign-in attempts; try again later' }, retryAfter: String(15 * 60 - 60) });
    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(metrics).toContain('githost_accounts_sign_ins_total{result="throttled",service="accounts"} 1');
    expect(metrics).toMatch(/githost_accounts_sign_ins_total\{result="refused",service="accounts"\} \d+/);
    now = start + 15 * 60_000 + 1;
    expect((await signIn('locked', 'locked password')).status).toBe(201);
  });

  it('when an address has 30 failures in 15 minutes, then it is refused for any account while other addresses are not', async () => {
    await createUser('victim', 'victim password');
    const attacker = { address: '2001:db8::66', user_agent: 'spray' };
    for (let i = 0; i < 30; i++) expect((await signIn(`spray-${i}`, 'password123', attacker)).status).toBe(401);
    const refused = await signIn('victim', 'victim password', attacker);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(15 * 60);
    expect((await signIn('victim', 'victim password')).status).toBe(201);
  });

  it('when a stolen session guesses the current password, then the guesses count against the account', async () => {
    await createUser('wes', 'wes password');
    const { client: wes } = await session('wes', 'wes password');
    for (let i = 0; i < 10; i++) expect((await wes.request('PUT', '/api/user/password', { current_password: `guess ${i} pw`, password: 'new password' })).status).toBe(403);
    expect((await wes.requestWithHeaders('PUT', '/api/user/password', { current_password: 'wes password', password: 'new password' })).status).toBe(429);
    expect((await signIn('wes', 'wes password', { address: '192.0.2.200', user_agent: 'x' })).status).toBe(429);
  });

  it('when the database is read, then it holds argon2id hashes and secret hashes only, and failures older than a day are swept by the next failure', async () => {
    await createUser('stored', 'stored password');
    const { client } = await session('stored', 'stored password');
    expect((await signIn('stored', 'wrong password')).status).toBe(401);
    now += DAY + 60_000;
    expect((await signIn('someone-else', 'wrong password', { address: '192.0.2.250', user_agent: 'x' })).status).toBe(401);
    await h.service.stop();
    const db = await openAccountsDatabase({ url: h.databaseUrl, pgliteDir: pgliteDir(h.config) });
    try {
      const users = await db.query<{ password_hash: string | null }>("SELECT password_hash FROM users WHERE username = 'stored'");
      expect(users.rows[0]!.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      const sessions = await db.query('SELECT * FROM sessions');
      const dump = JSON.stringify(sessions.rows) + JSON.stringify(users.rows);
      expect(dump).not.toContain(client.token!);
      expect(dump).not.toContain('stored password');
      const failures = await db.query<{ kind: string; key: string }>('SELECT kind, key FROM sign_in_failures ORDER BY kind, key');
      expect(failures.rows).toEqual([{ kind: 'account', key: 'someone-else' }, { kind: 'address', key: '192.0.2.250' }]);
    } finally {
      await db.close();
    }
    h.service = createServer(h.config, { clock: () => now });
    const { httpPort } = await h.service.start();
    h.base = `http://127.0.0.1:${httpPort}`;
  });
});
