import { request } from 'node:http';
import type { Repository } from '@githost/api-types';
import type { TestGithost } from './githost.js';
import { assertMatchesOpenApi } from './openapi.js';

export interface ApiResponse<B = any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  /** Parsed JSON when the body is JSON, the text otherwise, null when empty. */
  body: B;
  headers: Headers;
}

export interface ApiOptions {
  token?: string;
  /** Sent as JSON, unless a string or Buffer (sent as is, content type JSON unless given). */
  body?: unknown;
  headers?: Record<string, string>;
}

/** One HTTP call through the gateway. The answer is checked against openapi/openapi.yaml:
 *  one the document does not describe throws, failing the test. */
export async function api<B = any>(gh: Pick<TestGithost, 'url'>, method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<B>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  // A copy as a plain Uint8Array: the DOM typings that playwright-core brings in refuse a Buffer.
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : Buffer.isBuffer(opts.body) ? new Uint8Array(opts.body) : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(gh.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text === '' ? null : text;
  if (text !== '' && (res.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      // kept as text so a failing assertion shows what came back
    }
  }
  assertMatchesOpenApi(method, path, res.status, res.headers.get('content-type'), parsed);
  return { status: res.status, body: parsed as B, headers: res.headers };
}

export interface TestUser {
  id: string;
  username: string;
  token: string;
}

/** A user with one token, made by the bootstrap admin through /api/admin (CONTRACT §8). */
export async function createUser(gh: TestGithost, username: string, opts: { admin?: boolean } = {}): Promise<TestUser> {
  const user = await api(gh, 'POST', '/api/admin/users', { token: gh.adminToken, body: { username, email: `${username}@example.com`, is_admin: !!opts.admin } });
  if (user.status !== 201) throw new Error(`createUser ${username}: ${user.status} ${JSON.stringify(user.body)}`);
  const token = await api(gh, 'POST', `/api/admin/users/${encodeURIComponent(username)}/tokens`, { token: gh.adminToken, body: { name: 'e2e' } });
  if (token.status !== 201) throw new Error(`createUser ${username} token: ${token.status} ${JSON.stringify(token.body)}`);
  return { id: user.body.id, username, token: token.body.token };
}

/** createUser for each name, in order. */
export async function createUsers<const N extends readonly string[]>(gh: TestGithost, ...usernames: N): Promise<{ -readonly [K in keyof N]: TestUser }> {
  const users: TestUser[] = [];
  for (const username of usernames) users.push(await createUser(gh, username));
  return users as { -readonly [K in keyof N]: TestUser };
}

/** A repository as the API answers it (openapi/openapi.yaml `Repository`). */
export type TestRepo = Repository;

/** A repository owned by the token's user (POST /api/repos). */
export async function createRepo(gh: TestGithost, token: string, name: string, opts: { private?: boolean; default_branch?: string; description?: string } = {}): Promise<TestRepo> {
  const res = await api<TestRepo>(gh, 'POST', '/api/repos', { token, body: { name, ...opts } });
  if (res.status !== 201) throw new Error(`createRepo ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Gives `username` read or write on owner/repo (the owner's token). */
export async function addCollaborator(gh: TestGithost, token: string, owner: string, repo: string, username: string, permission: 'read' | 'write'): Promise<void> {
  const res = await api(gh, 'PUT', `/api/repos/${owner}/${repo}/collaborators/${username}`, { token, body: { permission } });
  if (res.status !== 204) throw new Error(`addCollaborator ${username}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A GET with the path sent exactly as written (fetch would normalise `..` and `%2e` away), JSON
 *  answer; not checked against the OpenAPI document. */
export function rawGet(gh: Pick<TestGithost, 'port'>, path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gh.port, path, method: 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    req.end();
  });
}
