import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import {
  api, cloneUrl, createBranchedRepo, createUser, git, makeWorkdir, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/**
 * Malformed input answers a 4xx JSON error and changes nothing (docs/security.md#malformed-requests): percent-
 * encoding that does not decode, NUL characters, encodings we cannot decode, over-long URLs.
 * fetch sends a path's percent escapes exactly as written.
 */
let gh: TestGithost;
let alice: TestUser;
let hookId: string;

interface Raw {
  status: number;
  contentType: string;
  body: unknown;
}

async function raw(method: string, path: string, opts: { token?: string; basic?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Raw> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.basic) headers.authorization = `Basic ${Buffer.from(`x:${opts.basic}`).toString('base64')}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  // fetch keeps percent escapes as written, valid or not; a request without an answer fails.
  const res = await fetch(`${gh.url}${path}`, { method, headers, body: typeof opts.body === 'string' || opts.body === undefined ? opts.body : new Uint8Array(opts.body), signal: AbortSignal.timeout(20_000) });
  const text = await res.text();
  let body: unknown = text === '' ? null : text;
  try {
    body = JSON.parse(text);
  } catch {
    // kept as text so a failing assertion shows it
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
}

const json = (value: unknown) => JSON.stringify(value);

/** What a refused request could have changed, read back as alice. */
async function snapshot(): Promise<unknown> {
  const read = async (path: string) => (await api(gh, 'GET', path, { token: alice.token })).body as unknown;
  return {
    repo: await read('/api/repos/alice/demo'),
    repos: await read('/api/user/repos'),
    mrs: await read('/api/repos/alice/demo/merge-requests?state=all'),
    comments: await read('/api/repos/alice/demo/merge-requests/1'),
    hooks: await read('/api/repos/alice/demo/webhooks'),
    deliveries: await read(`/api/repos/alice/demo/webhooks/${hookId}/deliveries`),
    tokens: await read('/api/user/tokens'),
    collaborators: await read('/api/repos/alice/demo/collaborators'),
    users: await read('/api/users/alice/repos'),
  };
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  await createUser(gh, 'bob');
  await createBranchedRepo(gh, alice, 'demo', { mainFiles: { 'README.md': '# demo\n' }, branch: 'feature', branchFiles: { 'f.txt': 'f\n' } });
  const mr = await api(gh, 'POST', '/api/repos/alice/demo/merge-requests', { token: alice.token, body: { title: 'MR', source_branch: 'feature', target_branch: 'main' } });
  expect(mr.status).toBe(201);
  const hook = await api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: alice.token, body: { url: 'http://127.0.0.1:9/hook', events: 'push' } });
  expect(hook.status).toBe(201);
  hookId = String(hook.body.id);
});

afterAll(async () => {
  await gh?.stop();
});

const expectJsonError = (res: Raw, status: number, message?: RegExp) => {
  expect({ status: res.status, json: res.contentType.startsWith('application/json') }).toEqual({ status, json: true });
  expect(typeof (res.body as { error?: unknown }).error).toBe('string');
  if (message) expect((res.body as { error: string }).error).toMatch(message);
};

describe('percent-encoding that does not decode', () => {
  const cases: Array<[string, string, string?]> = [
    ['GET', '/api/repos/alice/demo/merge-requests/%ff'],
    ['PATCH', '/api/repos/alice/demo/merge-requests/%ff', json({ title: 'x' })],
    ['POST', '/api/repos/alice/demo/merge-requests/%ff/comments', json({ body: 'x' })],
    ['GET', '/api/repos/alice/demo/webhooks/%ff'],
    ['GET', '/api/repos/alice/demo/webhooks/%ff/deliveries'],
    ['GET', '/api/repos/alice/demo/webhooks/HOOK/deliveries/%ff'],
    ['POST', '/api/repos/alice/demo/webhooks/HOOK/deliveries/%ff/redeliver'],
    ['PUT', '/api/repos/alice/demo/collaborators/%ff', json({ permission: 'read' })],
    ['DELETE', '/api/repos/alice/demo/collaborators/%ff'],
    ['DELETE', '/api/user/tokens/%ff'],
    ['DELETE', '/api/admin/users/alice/tokens/%ff'],
    ['GET', '/api/repos/al%ffice/demo'],
    ['GET', '/api/repos/alice/demo/blob/main/%ff'],
    ['GET', '/api/repos/alice/demo/commits/%e0%a4'],
    ['PUT', '/api/repos/alice/demo/branch-protections/%ff', json({})],
  ];
  // Every row has three cells: a two-cell row would make jest pass its `done` callback as the body.
  const rows = cases.map(([method, path, body]): [string, string, string | null] => [method, path, body ?? null]);
  it.each(rows)('when %s %s, then 400 Malformed percent-encoding and nothing changed', async (method, path, body) => {
    const before = await snapshot();
    const token = path.startsWith('/api/admin') ? gh.adminToken : alice.token;
    const res = await raw(method, path.replace('HOOK', hookId), { token, body: body ?? undefined });
    expectJsonError(res, 400, /percent-encoding/);
    expect(await snapshot()).toEqual(before);
  });

  it('when a webhook is deleted by an id that does not decode, then 204 as for any id (seed §5, CONTRACT §9)', async () => {
    const res = await raw('DELETE', '/api/repos/alice/demo/webhooks/%ff', { token: alice.token });
    expect(res.status).toBe(204);
    expect(((await api(gh, 'GET', '/api/repos/alice/demo/webhooks', { token: alice.token })).body as unknown[]).length).toBe(1);
  });
});

describe('NUL characters', () => {
  const bodies: Array<[string, string, Record<string, unknown>, string]> = [
    ['POST', '/api/repos/alice/demo/merge-requests', { title: 'a\u0000b', source_branch: 'feature', target_branch: 'main' }, 'title'],
    ['PATCH', '/api/repos/alice/demo/merge-requests/1', { title: 'a\u0000b' }, 'title'],
    ['POST', '/api/repos/alice/demo/merge-requests/1/comments', { body: 'a\u0000b' }, 'body'],
    ['POST', '/api/repos/alice/demo/merge-requests/1/comments', { body: 'ok', file_path: 'f\u0000.txt', line_number: 1 }, 'file_path'],
    ['POST', '/api/repos/alice/demo/webhooks', { url: 'http://127.0.0.1:9/\u0000', events: 'push' }, 'url'],
    ['POST', '/api/repos/alice/demo/webhooks', { url: 'http://127.0.0.1:9/h', secret: 's\u0000', events: 'push' }, 'secret'],
    ['POST', '/api/user/tokens', { name: 'ci\u0000' }, 'name'],
    ['POST', '/api/repos', { name: 'other', description: 'd\u0000' }, 'description'],
    ['PATCH', '/api/repos/alice/demo', { description: 'd\u0000' }, 'description'],
    ['POST', '/api/admin/users', { username: 'carol', email: 'c\u0000@example.com' }, 'email'],
  ];
  it.each(bodies)('when %s %s carries a NUL in a string field, then 400 naming the field and nothing changed', async (method, path, body, field) => {
    const before = await snapshot();
    const token = path.startsWith('/api/admin') ? gh.adminToken : alice.token;
    const res = await raw(method, path, { token, body: json(body) });
    expectJsonError(res, 400, new RegExp(field));
    expect(await snapshot()).toEqual(before);
    if (path === '/api/admin/users') expect((await api(gh, 'GET', '/api/users/carol/repos')).status).toBe(404);
  });

  it.each([
    ['/api/repos/alice/demo/merge-requests?state=%00', 'state'],
    ['/api/repos/alice/demo/commits/main?limit=1%00', 'limit'],
    ['/api/repos/alice/demo/merge-requests/%00', 'number'],
    ['/api/repos/alice/demo/webhooks/%00', 'webhook_id'],
  ])('when the parameter of %s holds a NUL, then 400 naming it', async (path, name) => {
    const res = await raw('GET', path, { token: alice.token });
    expectJsonError(res, 400, new RegExp(name));
  });
});

describe('bodies we cannot decode', () => {
  it('when the JSON charset is unknown, then 415 and nothing is created', async () => {
    const res = await raw('POST', '/api/user/tokens', { token: alice.token, headers: { 'content-type': 'application/json; charset=bogus' }, body: json({ name: 'bogus' }) });
    expectJsonError(res, 415, /charset/i);
  });

  it('when the content encoding is br or unknown, then 415', async () => {
    for (const encoding of ['br', 'compress', 'zstd']) {
      const res = await raw('POST', '/api/user/tokens', { token: alice.token, headers: { 'content-encoding': encoding }, body: json({ name: 'br' }) });
      expectJsonError(res, 415, /encoding/i);
    }
  });

  it('when a gzip body is malformed, then 400; a well-formed one is read', async () => {
    const bad = await raw('POST', '/api/user/tokens', { token: alice.token, headers: { 'content-encoding': 'gzip' }, body: Buffer.from('not gzip at all') });
    expectJsonError(bad, 400, /gzip|body/i);
    const good = await raw('POST', '/api/user/tokens', { token: alice.token, headers: { 'content-encoding': 'gzip' }, body: gzipSync(json({ name: 'zipped' })) });
    expect(good.status).toBe(201);
    const tokens = (await api(gh, 'GET', '/api/user/tokens', { token: alice.token })).body as Array<{ name: string }>;
    expect(tokens.map((t) => t.name).sort()).toEqual(['e2e', 'zipped']);
  });

  it('when a git push body is malformed gzip, then 400 and git-storage keeps serving', async () => {
    const res = await raw('POST', '/alice/demo.git/git-receive-pack', {
      basic: alice.token,
      headers: { 'content-type': 'application/x-git-receive-pack-request', 'content-encoding': 'gzip' },
      body: Buffer.from('0000 definitely not gzip'),
    });
    expectJsonError(res, 400, /gzip/i);
    const upload = await raw('POST', '/alice/demo.git/git-upload-pack', {
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xff]),
    });
    expectJsonError(upload, 400, /gzip/i);
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    expect(await git(`${dir}/demo`, 'log', '--format=%s')).toBe('initial');
  });
});

describe('over-long requests', () => {
  it('when the URL is over 16 KiB, then 414 with a JSON error', async () => {
    const res = await raw('GET', `/api/repos/alice/demo/blob/main/${'a'.repeat(17 * 1024)}`);
    expectJsonError(res, 414, /URI too long/i);
    const huge = await raw('GET', `/api/repos/alice/demo/blob/main/${'a'.repeat(100 * 1024)}`);
    expectJsonError(huge, 414, /URI too long/i);
  });

  it('when the header fields are over the limit, then 431 with a JSON error', async () => {
    const res = await raw('GET', '/api/user', { token: alice.token, headers: { 'x-padding': 'p'.repeat(20 * 1024) } });
    expectJsonError(res, 431, /header/i);
  });

  it('when a URL is long but under the limit, then it is served as usual', async () => {
    const res = await raw('GET', `/api/repos/alice/demo/blob/main/${'a'.repeat(4 * 1024)}`);
    expectJsonError(res, 404);
  });
});
