import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as accountsService from '@githost/accounts';
import * as storageService from '@githost/git-storage';
import { createServer, loadConfig, type Service } from '../src/index.js';

/** The gateway in front of the real accounts and git-storage services (PGlite, temp data dir). */
const SECRET = 'gateway-accounts-test-secret';
const ADMIN = 'gateway-test-bootstrap-admin-token';

let dir: string;
let storage: storageService.Service;
let accounts: accountsService.Service;
let gateway: Service;
let base: string;

async function call(method: string, p: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as Record<string, string> };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'githost-gateway-'));
  const env = { DATA_DIR: dir, HTTP_PORT: '0', GRPC_PORT: '0', METRICS_PORT: '0', GITHOST_INTERNAL_SECRET: SECRET, GITHOST_ADMIN_TOKEN: ADMIN, DATABASE_URL: '', AMQP_URL: '' };
  // Nothing is pushed here, so git-storage never asks accounts for protection rules.
  storage = storageService.createServer(storageService.loadConfig({ ...env, ACCOUNTS_GRPC_ADDR: '127.0.0.1:1' }));
  const s = await storage.start();
  accounts = accountsService.createServer(accountsService.loadConfig({ ...env, GIT_STORAGE_GRPC_ADDR: `127.0.0.1:${s.grpcPort}` }));
  const a = await accounts.start();
  gateway = createServer(loadConfig({
    PORT: '0',
    METRICS_PORT: '0',
    GITHOST_INTERNAL_SECRET: SECRET,
    ACCOUNTS_GRPC_ADDR: `127.0.0.1:${a.grpcPort}`,
    ACCOUNTS_HTTP_URL: `http://127.0.0.1:${a.httpPort}`,
    GIT_STORAGE_HTTP_URL: `http://127.0.0.1:${s.httpPort}`,
  }));
  base = `http://127.0.0.1:${(await gateway.start()).httpPort}`;
});

afterAll(async () => {
  await gateway?.stop();
  await accounts?.stop();
  await storage?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('gateway with the real accounts service', () => {
  let token: string;

  it('when the bootstrap admin creates a user and a token, then that token authenticates as the user', async () => {
    expect((await call('POST', '/api/admin/users', ADMIN, { username: 'erin', email: 'erin@example.com' })).status).toBe(201);
    const issued = await call('POST', '/api/admin/users/erin/tokens', ADMIN, { name: 'cli' });
    expect(issued.status).toBe(201);
    token = issued.body.token!;
    const me = await call('GET', '/api/user', token);
    expect([me.status, me.body.username, me.body.is_admin]).toEqual([200, 'erin', false]);
  });

  it('when a private repository is created, then only its owner sees it, over the API and git', async () => {
    expect((await call('POST', '/api/repos', token, { name: 'hidden', private: true })).status).toBe(201);
    const anonymous = await call('GET', '/api/repos/erin/hidden');
    expect([anonymous.status, anonymous.body]).toEqual([404, { error: 'Repository not found' }]);
    const owner = await call('GET', '/api/repos/erin/hidden', token);
    expect([owner.status, owner.body.full_name, owner.body.private]).toEqual([200, 'erin/hidden', true]);
    const anonymousGit = await call('GET', '/erin/hidden.git/info/refs?service=git-upload-pack');
    expect([anonymousGit.status, anonymousGit.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="githost"']);
    const res = await fetch(`${base}/erin/hidden.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`any:${token}`).toString('base64')}` } });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/x-git-upload-pack-advertisement']);
    expect((await res.text()).startsWith('001e# service=git-upload-pack\n')).toBe(true);
  });

  it('when a token is revoked, then the gateway refuses it', async () => {
    const extra = await call('POST', '/api/user/tokens', token, { name: 'temp' });
    expect((await call('DELETE', `/api/user/tokens/${extra.body.id}`, token)).status).toBe(204);
    const res = await call('GET', '/api/user', extra.body.token);
    expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
  });
});
