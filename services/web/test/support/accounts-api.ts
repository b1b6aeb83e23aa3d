import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as accountsService from '@githost/accounts';
import { createTestDatabase } from '@githost/db';
import * as gatewayService from '@githost/gateway';
import * as storageService from '@githost/git-storage';
import { SECRET } from './web.js';

const ADMIN_TOKEN = 'web-test-bootstrap-admin-token-0123456789';

/** The people the web's tests sign in as, with their passwords. */
export const PASSWORDS = { alice: 'correct horse battery', root: 'root horse battery', bob: 'bob horse battery' } as const;

export interface RecordedCall {
  method: string;
  path: string;
  credential: string | undefined;
  body: unknown;
  headers: IncomingMessage['headers'];
}

/**
 * The real API for the web's tests: git-storage, accounts (on a fresh database of the real
 * Postgres) and the gateway in front of them, as the launcher wires them. Before the gateway
 * stands a recorder that keeps every call the web makes (`calls`, with its headers) and answers
 * three paths no accounts test can make happen: a repository's activity (merge-requests' own,
 * not started here) and two users whose listing fails inside the API (500) or is unavailable (503).
 */
export interface AccountsApi {
  /** The recorder's address: what the web is pointed at. */
  url: string;
  calls: RecordedCall[];
  /** A call straight to the gateway as `credential` (a session secret or a token). */
  request(method: string, path: string, credential?: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> | undefined }>;
  /** Signs `username` in through the API (not the web), returning the session secret. */
  signIn(username: keyof typeof PASSWORDS, userAgent?: string): Promise<string>;
  signInWith(username: string, password: string, userAgent?: string): Promise<string>;
  /** Whether the API still accepts this session secret. */
  accepts(secret: string): Promise<boolean>;
  /** The id of the session this secret is. */
  sessionIdOf(secret: string): Promise<string>;
  /** A user's tokens as a site admin lists them. */
  tokensOf(username: string): Promise<{ id: string; name: string | null; scopes: string[] }[]>;
  close(): Promise<void>;
}

export async function startAccountsApi(): Promise<AccountsApi> {
  const dir = mkdtempSync(path.join(tmpdir(), 'githost-web-'));
  const database = await createTestDatabase('githost_web_accounts');
  const env = { DATA_DIR: dir, HTTP_PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', BIND_HOST: '127.0.0.1', GITHOST_INTERNAL_SECRET: SECRET, GITHOST_ADMIN_TOKEN: ADMIN_TOKEN, AMQP_URL: '' };
  // Nothing is pushed here, so git-storage never asks accounts for protection rules.
  const storage = storageService.createServer(storageService.loadConfig({ ...env, DATABASE_URL: '', ACCOUNTS_GRPC_ADDR: '127.0.0.1:1' }));
  const s = await storage.start();
  const accounts = accountsService.createServer(accountsService.loadConfig({ ...env, DATABASE_URL: database.url, GIT_STORAGE_GRPC_ADDR: `127.0.0.1:${s.grpcPort}` }));
  const a = await accounts.start();
  const gateway = gatewayService.createServer(
    gatewayService.loadConfig({
      PORT: '0',
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GITHOST_INTERNAL_SECRET: SECRET,
      ACCOUNTS_GRPC_ADDR: `127.0.0.1:${a.grpcPort}`,
      ACCOUNTS_HTTP_URL: `http://127.0.0.1:${a.httpPort}`,
      GIT_STORAGE_HTTP_URL: `http://127.0.0.1:${s.httpPort}`,
    }),
  );
  const gatewayUrl = `http://127.0.0.1:${(await gateway.start()).httpPort}`;

  async function request(method: string, p: string, credential?: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(gatewayUrl + p, {
      method,
      headers: { ...headers, ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  }
  async function must(method: string, p: string, credential: string, body?: unknown) {
    const res = await request(method, p, credential, body);
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }
  async function signInWith(username: string, password: string, userAgent?: string): Promise<string> {
    const res = await request('POST', '/api/sessions', undefined, { username, password }, userAgent ? { 'user-agent': userAgent } : {});
    if (res.status !== 201) throw new Error(`sign-in of ${username}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body!.secret as string;
  }
  const signIn = (username: keyof typeof PASSWORDS, userAgent?: string) => signInWith(username, PASSWORDS[username], userAgent);

  for (const [username, password] of Object.entries(PASSWORDS)) {
    await must('POST', '/api/admin/users', ADMIN_TOKEN, { username, email: `${username}@example.com`, is_admin: username === 'root', password });
  }
  const alice = await signIn('alice');
  const bob = await signIn('bob');
  await must('POST', '/api/repos', alice, { name: 'demo', description: 'Mine <b>' });
  await must('POST', '/api/repos', alice, { name: 'taken' });
  await must('POST', '/api/repos', bob, { name: 'shared', private: true });
  await must('PUT', '/api/repos/bob/shared/collaborators/alice', bob, { permission: 'read' });

  const calls: RecordedCall[] = [];
  const recorder: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://x');
      let body: unknown;
      try {
        body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
      } catch {
        body = raw.toString('utf8');
      }
      calls.push({ method: req.method ?? 'GET', path: url.pathname, credential: /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1], body, headers: req.headers });
      const json = (status: number, value: unknown) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (url.pathname === '/api/users/broken/repos') return json(500, { error: 'pg: connection to 10.0.0.7:5432 refused' });
      if (url.pathname === '/api/users/down/repos') return json(503, { error: 'Service unavailable' });
      if (/^\/api\/repos\/[^/]+\/[^/]+\/activity$/.test(url.pathname)) {
        return json(200, url.pathname === '/api/repos/alice/demo/activity' ? [{ id: 'a1', action: 'create_mr', user_id: 'u1', data: { mr_number: 3, mr_title: 'Fix <script>' }, created_at: '2026-01-02T00:00:00Z' }] : []);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
      fetch(gatewayUrl + (req.url ?? '/'), { method: req.method, headers, body: raw.length ? raw : undefined, redirect: 'manual' })
        .then(async (answer) => {
          const out: Record<string, string> = {};
          answer.headers.forEach((v, k) => {
            if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive' && k !== 'content-encoding') out[k] = v;
          });
          res.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => json(502, { error: 'Bad gateway' }));
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`,
    calls,
    request,
    signIn,
    signInWith,
    async accepts(secret) {
      return (await request('GET', '/api/user', secret)).status === 200;
    },
    async sessionIdOf(secret) {
      const list = (await must('GET', '/api/user/sessions', secret)) as unknown as { id: string; current: boolean }[];
      return list.find((x) => x.current)!.id;
    },
    async tokensOf(username) {
      return (await must('GET', `/api/admin/users/${encodeURIComponent(username)}/tokens`, ADMIN_TOKEN)) as unknown as { id: string; name: string | null; scopes: string[] }[];
    },
    async close() {
      recorder.closeAllConnections();
      await new Promise((resolve) => recorder.close(resolve));
      await gateway.stop();
      await accounts.stop();
      await storage.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
