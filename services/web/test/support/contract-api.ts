import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';

/**
 * A stand-in for the gateway that answers the sign-in and account endpoints exactly as the
 * `web-auth` contract gives them (POST /api/sessions, /api/user/sessions, /api/user/password)
 * plus the token and repository endpoints of openapi/openapi.yaml the settings and home pages
 * use, and the site admin's user and token endpoints (`root` is the site admin). It exists
 * until accounts serves sessions on main; the end-to-end tests in test/ run the reading pages
 * against the real services.
 */
export interface ContractApi {
  url: string;
  /** Every call as `METHOD path` with the bearer credential it carried. */
  calls: { method: string; path: string; credential: string | undefined; body: unknown; headers: Record<string, string | string[] | undefined> }[];
  sessions: Map<string, { id: string; username: string; created_at: string }>;
  tokens: { id: string; name: string | null; scopes: string[]; expires_at: string | null; created_at: string }[];
  passwords: Map<string, string>;
  users: Map<string, { id: string; email: string; is_admin: boolean }>;
  /** Tokens a site admin issued for a user (`POST /api/admin/users/{username}/tokens`), by username. */
  issuedFor: Map<string, TokenRecord[]>;
  close(): Promise<void>;
}

type TokenRecord = ContractApi['tokens'][number];
const SCOPE_ORDER = ['read', 'write', 'admin'];

/** `{name?, scopes?, expires_at?}` checked as accounts checks it (openapi TokenRequest). */
function tokenRequest(raw: unknown, isAdmin: boolean): { error: string } | { name: string | null; scopes: string[]; expires_at: string | null } {
  const body = (raw ?? {}) as { name?: unknown; scopes?: unknown; expires_at?: unknown };
  if (body.name !== undefined && (typeof body.name !== 'string' || body.name.length > 100)) return { error: 'name must be a string of at most 100 characters' };
  let scopes = isAdmin ? SCOPE_ORDER : SCOPE_ORDER.slice(0, 2);
  if (body.scopes !== undefined) {
    if (!Array.isArray(body.scopes) || !body.scopes.every((s) => SCOPE_ORDER.includes(s as string))) return { error: 'scopes must be an array of "read", "write" and "admin"' };
    if (body.scopes.length === 0) return { error: 'scopes must not be empty' };
    // Each scope includes the ones before it.
    scopes = SCOPE_ORDER.slice(0, Math.max(...body.scopes.map((s) => SCOPE_ORDER.indexOf(s as string))) + 1);
  }
  if (body.expires_at !== undefined && !(typeof body.expires_at === 'string' && Date.parse(body.expires_at) > Date.now())) return { error: 'expires_at must be in the future' };
  if (scopes.includes('admin') && !isAdmin) return { error: 'The "admin" scope is only for site admins' };
  const name = typeof body.name === 'string' && body.name.trim() ? body.name.trim() : null;
  return { name, scopes, expires_at: typeof body.expires_at === 'string' ? new Date(body.expires_at).toISOString() : null };
}

export async function startContractApi(): Promise<ContractApi> {
  const app = express();
  app.use(express.json());
  const api: Omit<ContractApi, 'url' | 'close'> = {
    calls: [],
    sessions: new Map(),
    tokens: [],
    passwords: new Map([
      ['alice', 'correct horse battery'],
      ['root', 'root horse battery'],
    ]),
    users: new Map([
      ['alice', { id: 'u1', email: 'alice@example.com', is_admin: false }],
      ['root', { id: 'u0', email: 'root@example.com', is_admin: true }],
    ]),
    issuedFor: new Map(),
  };
  const credentialOf = (req: express.Request) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  app.use((req, _res, next) => {
    api.calls.push({ method: req.method, path: req.path, credential: credentialOf(req), body: req.body, headers: req.headers });
    next();
  });
  const session = (req: express.Request) => api.sessions.get(credentialOf(req) ?? '');
  const signedIn: express.RequestHandler = (req, res, next) => (session(req) ? next() : void res.status(401).json({ error: 'Authentication required' }));
  const siteAdmin: express.RequestHandler = (req, res, next) => (api.users.get(session(req)!.username)?.is_admin ? next() : void res.status(403).json({ error: 'Forbidden' }));

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  // The anonymous home lists the newest repositories (docs/decisions/explore-lists.md): none here.
  app.get('/api/repos', (_req, res) => void res.json([]));
  app.post('/api/sessions', (req, res) => {
    const { username, password } = req.body as { username?: string; password?: string };
    if (!username || api.passwords.get(username) !== password) return void res.status(401).json({ error: 'Invalid username or password' });
    const id = randomBytes(8).toString('hex');
    const secret = `s_${randomBytes(24).toString('hex')}`;
    api.sessions.set(secret, { id, username, created_at: new Date().toISOString() });
    res.status(201).json({ id, secret, expires_at: new Date(Date.now() + 86_400_000).toISOString(), idle_expires_at: new Date(Date.now() + 3_600_000).toISOString() });
  });
  app.get('/api/user', signedIn, (req, res) => {
    const username = session(req)!.username;
    const user = api.users.get(username)!;
    res.json({ id: user.id, username, email: user.email, is_admin: user.is_admin });
  });
  app.get('/api/user/sessions', signedIn, (req, res) => {
    const current = credentialOf(req);
    res.json([...api.sessions.entries()].map(([secret, s]) => ({ id: s.id, current: secret === current, created_at: s.created_at, last_used_at: null, user_agent: 'Firefox <script>', address: '127.0.0.1' })));
  });
  app.delete('/api/user/sessions/current', signedIn, (req, res) => {
    api.sessions.delete(credentialOf(req)!);
    res.status(204).end();
  });
  app.delete('/api/user/sessions/:id', signedIn, (req, res) => {
    for (const [secret, s] of api.sessions) if (s.id === req.params.id) api.sessions.delete(secret);
    res.status(204).end();
  });
  app.put('/api/user/password', signedIn, (req, res) => {
    const { current_password, password } = req.body as { current_password?: string; password?: string };
    const username = session(req)!.username;
    if (api.passwords.get(username) !== current_password) return void res.status(400).json({ error: 'Current password is wrong' });
    if (!password || password.length < 8) return void res.status(400).json({ error: 'Password must be at least 8 characters' });
    api.passwords.set(username, password);
    res.status(204).end();
  });
  app.get('/api/user/tokens', signedIn, (_req, res) => void res.json(api.tokens.map((t) => ({ ...t, last_used_at: null }))));
  app.post('/api/user/tokens', signedIn, (req, res) => {
    const { name, scopes, expires_at } = req.body as { name: string; scopes: string[]; expires_at?: string };
    if (scopes.includes('admin')) return void res.status(400).json({ error: 'You cannot give a token the "admin" scope' });
    const token = { id: `t${api.tokens.length + 1}`, name, scopes, expires_at: expires_at ?? null, created_at: new Date().toISOString() };
    api.tokens.push(token);
    res.status(201).json({ ...token, token: `ght_${randomBytes(16).toString('hex')}` });
  });
  app.delete('/api/user/tokens/:id', signedIn, (req, res) => {
    const i = api.tokens.findIndex((t) => t.id === req.params.id);
    if (i < 0) return void res.status(404).json({ error: 'Token not found' });
    api.tokens.splice(i, 1);
    res.status(204).end();
  });
  app.get('/api/admin/users', signedIn, siteAdmin, (_req, res) =>
    void res.json([...api.users].map(([username, u]) => ({ ...u, username, created_at: '2026-01-01T00:00:00Z', suspended: false, suspended_at: null }))),
  );
  app.get('/api/admin/users/:username/tokens', signedIn, siteAdmin, (req, res) => {
    const username = String(req.params.username);
    if (!api.users.has(username)) return void res.status(404).json({ error: 'User not found' });
    res.json((api.issuedFor.get(username) ?? []).map((t) => ({ ...t, last_used_at: null })));
  });
  // As accounts answers it: the body is checked before the user is looked up.
  app.post('/api/admin/users/:username/tokens', signedIn, siteAdmin, (req, res) => {
    const username = String(req.params.username);
    const user = api.users.get(username);
    const checked = tokenRequest(req.body, user?.is_admin ?? true);
    if ('error' in checked) return void res.status(400).json({ error: checked.error });
    if (!user) return void res.status(404).json({ error: 'User not found' });
    const list = api.issuedFor.get(username) ?? [];
    const token = { id: `a${list.length + 1}`, name: checked.name, scopes: checked.scopes, expires_at: checked.expires_at, created_at: new Date().toISOString() };
    api.issuedFor.set(username, [...list, token]);
    res.status(201).json({ ...token, token: `ght_${randomBytes(16).toString('hex')}` });
  });
  app.get('/api/user/repos', signedIn, (_req, res) =>
    void res.json([
      { id: 'r1', owner: 'alice', name: 'demo', full_name: 'alice/demo', private: false, default_branch: 'main', description: 'Mine <b>', clone_url: 'http://x/alice/demo.git', created_at: '2026-01-01T00:00:00Z' },
      { id: 'r2', owner: 'bob', name: 'shared', full_name: 'bob/shared', private: true, default_branch: 'main', description: null, clone_url: 'http://x/bob/shared.git', created_at: '2026-01-01T00:00:00Z' },
    ]),
  );
  app.get('/api/repos/:owner/:repo/activity', (req, res) =>
    void res.json(req.params.repo === 'demo' ? [{ id: 'a1', action: 'create_mr', user_id: 'u1', data: { mr_number: 3, mr_title: 'Fix <script>' }, created_at: '2026-01-02T00:00:00Z' }] : []),
  );
  app.post('/api/repos', signedIn, (req, res) => {
    const { name } = req.body as { name: string };
    if (name === 'taken') return void res.status(409).json({ error: 'Repository already exists' });
    res.status(201).json({ id: 'r3', owner: session(req)!.username, name, full_name: `${session(req)!.username}/${name}`, private: false, default_branch: 'main', clone_url: 'x', created_at: '2026-01-01T00:00:00Z' });
  });
  // A dependency failing inside the API, its message naming internals no page may show.
  app.get('/api/users/broken/repos', (_req, res) => void res.status(500).json({ error: 'pg: connection to 10.0.0.7:5432 refused' }));
  app.get('/api/users/down/repos', (_req, res) => void res.status(503).json({ error: 'Service unavailable' }));
  app.use((_req, res) => void res.status(404).json({ error: 'Not found' }));

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    ...api,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
