import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { createHash } from 'node:crypto';
import { createServer, type Config, type Service } from '../src/index.js';
import { startFakeAccounts, type FakeAccounts, type FakeUser } from './support/fake-accounts.js';
import { startEchoUpstream, type Seen } from './support/echo-upstream.js';

const SECRET = 'gateway-test-internal-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };
const carol = { id: 'u-carol', username: 'carol', token: 'carol-token-cccccccccccccccc' };
const dave = { id: 'u-dave', username: 'dave', token: 'dave-token-dddddddddddddddddd' };

let accounts: FakeAccounts;
let upstreams: Awaited<ReturnType<typeof startEchoUpstream>>[];
let gateway: Service;
let base: string;
let metricsBase: string;

const seen = (): Seen[] => upstreams.flatMap((u) => u.seen);
const lastSeen = (): Seen => {
  const all = seen();
  return all[all.length - 1]!;
};

async function call(method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}) {
  const res = await fetch(base + path, { method, headers: opts.headers, body: opts.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text so the assertion shows it
  }
  return { status: res.status, body, headers: res.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const basic = (user: string, token: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}` });

beforeAll(async () => {
  accounts = await startFakeAccounts([alice, bob, carol, dave], [
    { id: 'r-pub', owner: 'alice', name: 'demo', private: false, collaborators: { [bob.id]: 'write' } },
    { id: 'r-priv', owner: 'alice', name: 'secret', private: true, collaborators: { [bob.id]: 'read' } },
  ], SECRET);
  upstreams = await Promise.all(['accounts', 'git-storage', 'browse', 'merge-requests'].map((n) => startEchoUpstream(n, SECRET)));
  const [acc, git, browse, mr] = upstreams.map((u) => u.url);
  const config: Config = {
    port: 0,
    metricsPort: 0,
    internalSecret: SECRET,
    accountsGrpcAddress: accounts.address,
    // webhooks points at a port nobody listens on: an upstream that is down.
    upstreams: { accounts: acc, 'git-storage': git, browse, 'merge-requests': mr, webhooks: 'http://127.0.0.1:9' },
  };
  gateway = createServer(config);
  const ports = await gateway.start();
  base = `http://127.0.0.1:${ports.httpPort}`;
  metricsBase = `http://127.0.0.1:${ports.metricsPort}`;
});

afterAll(async () => {
  await gateway.stop();
  await Promise.all(upstreams.map((u) => u.close()));
  await accounts.close();
});

beforeEach(() => {
  for (const u of upstreams) u.seen.length = 0;
});

describe('gateway routing and identity', () => {
  it('when a user calls an accounts route with a bearer token, then accounts gets the same path with a signed identity and no token', async () => {
    const res = await call('POST', '/api/repos?x=1', { headers: { ...bearer(alice.token), 'content-type': 'application/json' }, body: '{"name":"demo"}' });
    expect(res.status).toBe(200);
    const s = lastSeen();
    expect([s.upstream, s.method, s.url, s.body_bytes]).toEqual(['accounts', 'POST', '/api/repos?x=1', 15]);
    expect(s.identity).toMatchObject({ principal: { user_id: 'u-alice', username: 'alice', is_admin: false }, repo: null });
    expect(s.headers.authorization).toBeUndefined();
  });

  it('when a client sends its own x-githost-identity headers, then they are dropped and the gateway signs its own', async () => {
    const res = await call('GET', '/api/repos/alice/demo/branches', {
      headers: { 'x-githost-identity': 'forged', 'x-githost-identity-signature': 'forged', 'x-githost-other': '1' },
    });
    expect(res.status).toBe(200);
    const s = lastSeen();
    expect(s.identity).toMatchObject({ principal: null, repo: { id: 'r-pub', owner: 'alice', name: 'demo', permission: 'read', private: false } });
    expect(s.headers['x-githost-other']).toBeUndefined();
  });

  it('when a request id is sent, then it is echoed and forwarded; when absent, then one is generated', async () => {
    const given = await call('GET', '/api/repos/alice/demo', { headers: { 'x-request-id': 'req-123' } });
    expect(given.headers.get('x-request-id')).toBe('req-123');
    expect(lastSeen().headers['x-request-id']).toBe('req-123');
    expect(lastSeen().identity).toMatchObject({ request_id: 'req-123' });
    const generated = await call('GET', '/api/repos/alice/demo');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lastSeen().headers['x-request-id']).toBe(generated.headers.get('x-request-id'));
  });

  it('when each route family is called, then the route table picks the service', async () => {
    await call('GET', '/api/repos/alice/demo/tree/main/src');
    await call('GET', '/api/repos/alice/demo/merge-requests/1');
    await call('GET', '/api/repos/alice/demo/activity');
    await call('GET', '/api/user', { headers: bearer(alice.token) });
    await call('PUT', '/api/repos/alice/demo/collaborators/bob', { headers: bearer(alice.token) });
    await call('GET', '/alice/demo.git/info/refs?service=git-upload-pack');
    expect(seen().map((s) => `${s.upstream} ${s.url}`).sort()).toEqual([
      'accounts /api/repos/alice/demo/collaborators/bob',
      'accounts /api/user',
      'browse /api/repos/alice/demo/tree/main/src',
      'git-storage /alice/demo.git/info/refs?service=git-upload-pack',
      'merge-requests /api/repos/alice/demo/activity',
      'merge-requests /api/repos/alice/demo/merge-requests/1',
    ]);
  });

  it('when a route is unknown, then 404 JSON Not found', async () => {
    for (const path of ['/nothing', '/api/repos/alice/demo/unknown', '/api/other']) {
      const res = await call('GET', path);
      expect([res.status, res.body]).toEqual([404, { error: 'Not found' }]);
    }
    expect(seen()).toEqual([]);
  });

  it('when the request target is //host/... or climbs with .., then 404 and nothing is forwarded', async () => {
    for (const target of ['//alice/demo.git/info/refs?service=git-upload-pack', '/api/repos/alice/secret/../demo/branches', '/api/repos/alice/demo/../secret']) {
      const res = await rawRequest('GET', target);
      expect([target, res.status, JSON.parse(res.body)]).toEqual([target, 404, { error: 'Not found' }]);
    }
    expect(seen()).toEqual([]);
  });

  it('when the OpenAPI document is asked for without credentials, then openapi/openapi.yaml comes back as JSON', async () => {
    const res = await call('GET', '/api/openapi.json');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    const doc = res.body as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/openapi.json', '/api/repos/{owner}/{repo}/merge-requests/{number}/merge']));
    expect(seen()).toEqual([]);
  });

  it('when the gateway is asked for health, then healthz and readyz answer on the public port, and metrics on the metrics port only', async () => {
    expect((await call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call('GET', '/readyz')).body).toEqual({ status: 'ready' });
    // CONTRACT §8: the public port serves no metrics, and asks no upstream for them
    const onPublic = await call('GET', '/metrics');
    expect([onPublic.status, onPublic.body]).toEqual([404, { error: 'Not found' }]);
    expect(seen()).toEqual([]);
    const res = await fetch(`${metricsBase}/metrics`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    const metrics = await res.text();
    expect(metrics).toContain('githost_gateway_http_request_duration_seconds');
    expect(metrics).toMatch(/githost_gateway_http_request_duration_seconds_count\{service="gateway",method="GET",route="browse\/browse",status="200"\} \d+/);
    expect(metrics).toMatch(/githost_gateway_forwarded_requests_total\{upstream="browse",status="200",service="gateway"\} \d+/);
    expect(metrics).toMatch(/githost_gateway_refused_requests_total\{status="404",service="gateway"\} \d+/);
    expect(metrics).toMatch(/githost_gateway_accounts_cache_total\{cache="authorize",result="miss",service="gateway"\} \d+/);
  });
});

describe('gateway authentication', () => {
  it('when a present token is invalid, then 401 on every kind of route and the repository is never looked up', async () => {
    const before = accounts.calls.authorize;
    for (const path of ['/api/repos/alice/demo/branches', '/api/repos/alice/demo', '/api/user', '/api/repos/nobody/none/tree', '/nothing']) {
      const res = await call('GET', path, { headers: bearer('wrong-token-zzzzzzzzzzzzzzzzz') });
      expect([path, res.status, res.body]).toEqual([path, 401, { error: 'Authentication required' }]);
      expect(res.headers.get('www-authenticate')).toBeNull();
    }
    const git = await call('GET', '/alice/demo.git/info/refs?service=git-upload-pack', { headers: basic('alice', 'wrong') });
    expect([git.status, git.body, git.headers.get('www-authenticate')]).toEqual([401, { error: 'Authentication required' }, 'Basic realm="githost"']);
    expect(accounts.calls.authorize).toBe(before);
    expect(seen()).toEqual([]);
  });

  it('when the Authorization header is malformed or of an unknown scheme, then 401', async () => {
    for (const header of ['Bearer', 'Digest abc', 'Bearer a b']) {
      expect((await call('GET', '/api/repos/alice/demo', { headers: { authorization: header } })).status).toBe(401);
    }
  });

  it('when a required-auth route is called anonymously, then 401', async () => {
    for (const [method, path] of [['GET', '/api/user'], ['POST', '/api/repos'], ['POST', '/api/repos/alice/demo/merge-requests'], ['GET', '/api/repos/alice/demo/webhooks']] as const) {
      const res = await call(method, path);
      expect([path, res.status, res.body]).toEqual([path, 401, { error: 'Authentication required' }]);
    }
  });

  it('when the same token is used twice in a row, then accounts is asked once', async () => {
    const before = accounts.calls.authenticate;
    await call('GET', '/api/user', { headers: bearer(carol.token) });
    await call('GET', '/api/user', { headers: bearer(carol.token) });
    expect(accounts.calls.authenticate - before).toBe(1);
    const rejected = accounts.calls.authenticate;
    await call('GET', '/api/user', { headers: bearer('never-valid-token-yyyyyyyyyyyy') });
    await call('GET', '/api/user', { headers: bearer('never-valid-token-yyyyyyyyyyyy') });
    expect(accounts.calls.authenticate - rejected).toBe(1);
  });

  it('when the bootstrap admin token is used, then the principal is a site admin without a user id', async () => {
    await call('POST', '/api/admin/users', { headers: bearer('bootstrap-admin-token-123'), body: '{}' });
    expect(lastSeen().identity).toMatchObject({ principal: { user_id: null, is_admin: true } });
  });
});

describe('gateway repository access', () => {
  it('when the repository does not exist, then 404 Repository not found (browse: Not found)', async () => {
    expect((await call('GET', '/api/repos/alice/nope')).body).toEqual({ error: 'Repository not found' });
    expect((await call('GET', '/api/repos/alice/nope/merge-requests')).body).toEqual({ error: 'Repository not found' });
    const browse = await call('GET', '/api/repos/alice/nope/branches');
    expect([browse.status, browse.body]).toEqual([404, { error: 'Not found' }]);
    expect(seen()).toEqual([]);
  });

  it('when a private repository is read by someone without access, then it looks like it does not exist', async () => {
    for (const headers of [{}, bearer(carol.token)]) {
      expect((await call('GET', '/api/repos/alice/secret', { headers })).body).toEqual({ error: 'Repository not found' });
      expect((await call('GET', '/api/repos/alice/secret/merge-requests', { headers })).body).toEqual({ error: 'Repository not found' });
      expect((await call('GET', '/api/repos/alice/secret/tree/main', { headers })).body).toEqual({ error: 'Not found' });
    }
    expect(seen()).toEqual([]);
  });

  it('when a reader collaborator reads a private repository, then the service gets the repository and permission', async () => {
    const res = await call('GET', '/api/repos/alice/secret/blob/main/README.md', { headers: bearer(bob.token) });
    expect(res.status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ principal: { username: 'bob' }, repo: { id: 'r-priv', private: true, permission: 'read', owner_id: 'u-alice', default_branch: 'main' } });
  });
});

describe('gateway git transport', () => {
  const challenge = 'Basic realm="githost"';

  it('when an anonymous client clones a private or missing repository, then 401 with the Basic challenge', async () => {
    for (const repo of ['secret', 'missing']) {
      const res = await call('GET', `/alice/${repo}.git/info/refs?service=git-upload-pack`);
      expect([res.status, res.body, res.headers.get('www-authenticate')]).toEqual([401, { error: 'Authentication required' }, challenge]);
    }
  });

  it('when an anonymous client pushes, even to a public repository, then 401 with the challenge', async () => {
    const refs = await call('GET', '/alice/demo.git/info/refs?service=git-receive-pack');
    const pack = await call('POST', '/alice/demo.git/git-receive-pack', { body: 'x' });
    expect([refs.status, refs.headers.get('www-authenticate'), pack.status]).toEqual([401, challenge, 401]);
  });

  it('when an authenticated user without access clones a private repository, then 404', async () => {
    const res = await call('GET', '/alice/secret.git/info/refs?service=git-upload-pack', { headers: basic('carol', carol.token) });
    expect([res.status, res.body, res.headers.get('www-authenticate')]).toEqual([404, { error: 'Repository not found' }, null]);
  });

  it('when a reader pushes, then 403; when a writer pushes under any username, then it is forwarded', async () => {
    const reader = await call('POST', '/alice/secret.git/git-receive-pack', { headers: basic('bob', bob.token), body: 'x' });
    expect([reader.status, reader.body]).toEqual([403, { error: 'You do not have write access to this repository' }]);
    const writer = await call('GET', '/alice/demo.git/info/refs?service=git-receive-pack', { headers: basic('whoever', bob.token) });
    expect(writer.status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ principal: { username: 'bob' }, repo: { id: 'r-pub', permission: 'write' } });
  });

  it('when a push body is large and gzip-encoded, then it reaches git-storage byte for byte', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024 + 7, 'gzipped-pack-bytes');
    const res = await call('POST', '/alice/demo.git/git-receive-pack', { headers: { ...basic('alice', alice.token), 'content-encoding': 'gzip' }, body });
    expect(res.status).toBe(200);
    const s = lastSeen();
    expect([s.upstream, s.body_bytes, s.body_sha256, s.headers['content-encoding']]).toEqual([
      'git-storage', body.length, createHash('sha256').update(body).digest('hex'), 'gzip',
    ]);
  });
});

describe('gateway streaming', () => {
  it('when a client hangs up in the middle of a clone, then the upstream download is stopped too', async () => {
    const git = upstreams[1]!;
    const before = git.streamsClosed();
    const abort = new AbortController();
    const res = await fetch(`${base}/alice/demo.git/git-upload-pack`, { method: 'POST', headers: { ...basic('alice', alice.token), 'x-test-stream': 'forever' }, body: '0000', signal: abort.signal });
    const reader = res.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    abort.abort();
    await reader.read().catch(() => undefined);
    for (let i = 0; i < 200 && git.streamsClosed() === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(git.streamsClosed()).toBe(before + 1);
  });
});

describe('gateway body limits and failures', () => {
  it('when an API body declares more than 1 MiB, then 413 and nothing is forwarded', async () => {
    const res = await call('POST', '/api/repos', { headers: { ...bearer(alice.token), 'content-type': 'application/json' }, body: 'x'.repeat(1024 * 1024 + 1) });
    expect([res.status, res.body]).toEqual([413, { error: 'Request body too large' }]);
    expect(seen()).toEqual([]);
  });

  it('when a chunked API body passes 1 MiB while streaming, then 413 and the service never gets a complete body', async () => {
    const res = await chunkedPost('/api/repos', bearer(alice.token), 40, 32 * 1024);
    expect([res.status, JSON.parse(res.body)]).toEqual([413, { error: 'Request body too large' }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen().filter((s) => s.complete)).toEqual([]);
  });

  it('when a chunked API body stays under 1 MiB, then it arrives intact', async () => {
    const res = await chunkedPost('/api/repos', bearer(alice.token), 8, 32 * 1024);
    expect(res.status).toBe(200);
    expect([lastSeen().body_bytes, lastSeen().complete]).toEqual([8 * 32 * 1024, true]);
  });

  it('when the upstream is down, then a read is tried once more on a new connection, counted, and answered 503 JSON Service unavailable', async () => {
    const retried = async () => Number(/githost_gateway_upstream_retries_total\{upstream="webhooks",service="gateway"\} (\d+)/.exec(await (await fetch(`${metricsBase}/metrics`)).text())?.[1] ?? 0);
    const before = await retried();
    const res = await call('GET', '/api/repos/alice/demo/webhooks', { headers: bearer(alice.token) });
    expect([res.status, res.body]).toEqual([503, { error: 'Service unavailable' }]);
    expect(await retried()).toBe(before + 1);
    // A write is never sent twice (docs/decisions/replicas.md#a-replica-that-dies).
    const write = await call('POST', '/api/repos/alice/demo/webhooks', { headers: { ...bearer(alice.token), 'content-type': 'application/json' }, body: '{}' });
    expect([write.status, write.body]).toEqual([503, { error: 'Service unavailable' }]);
    expect(await retried()).toBe(before + 1);
  });
});

/** Sends `chunks` chunks of `size` bytes with chunked transfer encoding, reading the answer
 *  even if the server answers before the body is done. */
function chunkedPost(path: string, headers: Record<string, string>, chunks: number, size: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    let sent = 0;
    const writeNext = () => {
      if (sent === chunks) return void req.end();
      sent++;
      if (req.write(Buffer.alloc(size, 'a'))) setImmediate(writeNext);
      else req.once('drain', writeNext);
    };
    writeNext();
  });
}

describe('gateway when accounts is down', () => {
  it('when accounts cannot be reached, then 503 Service unavailable and /readyz is 503 naming accounts', async () => {
    const down = createServer({ port: 0, metricsPort: 0, internalSecret: SECRET, accountsGrpcAddress: '127.0.0.1:9', upstreams: { accounts: upstreams[0]!.url, 'git-storage': undefined, browse: undefined, 'merge-requests': undefined, webhooks: undefined } });
    const port = (await down.start()).httpPort;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/user`, { headers: bearer(alice.token) });
      expect([res.status, await res.json()]).toEqual([503, { error: 'Service unavailable' }]);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([503, { status: 'unavailable', failing: ['accounts'] }]);
    } finally {
      await down.stop();
    }
  });
});

describe('gateway caching of repository access', () => {
  it('when a collaborator is added right after being refused, then the next request gets in at once', async () => {
    const repo = accounts.repos.find((r) => r.name === 'secret')!;
    const first = await call('GET', '/api/repos/alice/secret', { headers: bearer(carol.token) });
    expect(first.status).toBe(404);
    repo.collaborators[carol.id] = 'read';
    try {
      const second = await call('GET', '/api/repos/alice/secret', { headers: bearer(carol.token) });
      expect(second.status).toBe(200);
    } finally {
      delete repo.collaborators[carol.id];
    }
  });

  it('when a collaborator is removed through the gateway, then the cached grant is dropped and the next request is refused', async () => {
    const repo = accounts.repos.find((r) => r.name === 'secret')!;
    repo.collaborators[dave.id] = 'read';
    try {
      expect((await call('GET', '/api/repos/alice/secret/branches', { headers: bearer(dave.token) })).status).toBe(200);
      delete repo.collaborators[dave.id];
      const removed = await call('DELETE', '/api/repos/alice/secret/collaborators/dave', { headers: bearer(alice.token) });
      expect(removed.status).toBe(200);
      const after = await call('GET', '/api/repos/alice/secret/branches', { headers: bearer(dave.token) });
      expect([after.status, after.body]).toEqual([404, { error: 'Not found' }]);
    } finally {
      delete repo.collaborators[dave.id];
    }
  });

  it('when only reads or a refused change pass, then cached grants stay', async () => {
    await call('GET', '/api/repos/alice/demo/tags', { headers: bearer(carol.token) });
    const before = accounts.calls.authorize;
    await call('GET', '/api/repos/alice/demo/activity', { headers: bearer(carol.token) });
    expect((await call('DELETE', '/api/repos/alice/demo/collaborators/carol')).status).toBe(401);
    await call('GET', '/api/repos/alice/demo/branches', { headers: bearer(carol.token) });
    expect(accounts.calls.authorize - before).toBe(0);
  });

  it('when a user revokes a token through the gateway, then the cached authentication is dropped', async () => {
    const temp = { id: 'u-temp', username: 'temp', token: 'temp-token-tttttttttttttttttt' };
    accounts.users.push(temp);
    try {
      expect((await call('GET', '/api/user', { headers: bearer(temp.token) })).status).toBe(200);
      accounts.users.splice(accounts.users.indexOf(temp), 1);
      expect((await call('DELETE', '/api/user/tokens/t-1', { headers: bearer(temp.token) })).status).toBe(200);
      const after = await call('GET', '/api/user', { headers: bearer(temp.token) });
      expect([after.status, after.body]).toEqual([401, { error: 'Authentication required' }]);
    } finally {
      if (accounts.users.includes(temp)) accounts.users.splice(accounts.users.indexOf(temp), 1);
    }
  });

  it('when a repository is read twice in a row by the same caller, then accounts is asked once', async () => {
    const before = accounts.calls.authorize;
    await call('GET', '/api/repos/alice/demo/branches', { headers: bearer(dave.token) });
    await call('GET', '/api/repos/alice/demo/tags', { headers: bearer(dave.token) });
    expect(accounts.calls.authorize - before).toBe(1);
  });
});

describe('gateway token scopes', () => {
  const SHA = '0123456789abcdef0123456789abcdef01234567';
  const bobRead = { ...bob, token: 'bob-read-token-rrrrrrrrrrrrrrrr', scopes: ['read'] };
  const bobCi = { ...bob, token: 'bob-ci-token-cccccccccccccccccc', scopes: ['read', 'write'] };
  const root = { id: 'u-root', username: 'root', token: 'root-token-aaaaaaaaaaaaaaaaaa', is_admin: true };
  const rootWrite = { ...root, token: 'root-write-token-wwwwwwwwwwwww', scopes: ['read', 'write'] };
  const added: FakeUser[] = [bobRead, bobCi, root, rootWrite];
  beforeAll(() => void accounts.users.push(...added));
  afterAll(() => void accounts.users.splice(0, accounts.users.length, ...accounts.users.filter((u) => !added.includes(u))));

  it('when a read token clones and browses, then it is forwarded with at most read permission', async () => {
    expect((await call('GET', '/alice/demo.git/info/refs?service=git-upload-pack', { headers: basic('bob', bobRead.token) })).status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ principal: { user_id: 'u-bob' }, repo: { id: 'r-pub', permission: 'read' } });
    expect((await call('GET', '/api/repos/alice/demo/tree/main', { headers: bearer(bobRead.token) })).status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ repo: { permission: 'read' } });
  });

  it('when a read token pushes or writes through the API, then 403 names the scope and nothing is forwarded', async () => {
    const message = { error: 'This token has only the "read" scope: it can clone and browse, not push or change anything' };
    const refs = await call('GET', '/alice/demo.git/info/refs?service=git-receive-pack', { headers: basic('bob', bobRead.token) });
    expect([refs.status, refs.body]).toEqual([403, message]);
    const pack = await call('POST', '/alice/demo.git/git-receive-pack', { headers: basic('bob', bobRead.token), body: 'x' });
    expect([pack.status, pack.body]).toEqual([403, message]);
    for (const [method, path] of [['POST', '/api/repos/alice/demo/merge-requests'], ['POST', '/api/repos/alice/demo/merge-requests/1/comments'], ['POST', `/api/repos/alice/demo/statuses/${SHA}`], ['POST', '/api/user/tokens'], ['DELETE', '/api/repos/alice/demo/webhooks/1']] as const) {
      const res = await call(method, path, { headers: { ...bearer(bobRead.token), 'content-type': 'application/json' }, body: '{}' });
      expect([method, path, res.status, res.body]).toEqual([method, path, 403, message]);
    }
    expect(seen()).toEqual([]);
  });

  it('when a write-scoped CI token posts a status, then it is forwarded with the collaborator\'s write permission', async () => {
    const res = await call('POST', `/api/repos/alice/demo/statuses/${SHA}`, { headers: { ...bearer(bobCi.token), 'content-type': 'application/json' }, body: '{"state":"success"}' });
    expect(res.status).toBe(200);
    expect([lastSeen().upstream, lastSeen().identity]).toEqual(['merge-requests', expect.objectContaining({ repo: expect.objectContaining({ permission: 'write' }) })]);
  });

  it('when a site admin\'s token lacks the admin scope, then it is signed as a normal user and sees no private repository it has no part in', async () => {
    expect((await call('GET', '/api/repos/alice/secret', { headers: bearer(root.token) })).status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ principal: { username: 'root', is_admin: true }, repo: { permission: 'admin' } });
    const hidden = await call('GET', '/api/repos/alice/secret', { headers: bearer(rootWrite.token) });
    expect([hidden.status, hidden.body]).toEqual([404, { error: 'Repository not found' }]);
    expect((await call('GET', '/api/admin/users', { headers: bearer(rootWrite.token) })).status).toBe(200);
    expect(lastSeen().identity).toMatchObject({ principal: { username: 'root', is_admin: false } });
  });

  it('when a site admin changes a user through the gateway, then that user\'s cached authentication is dropped at once', async () => {
    const temp = { id: 'u-temp2', username: 'Temp2', token: 'temp2-token-tttttttttttttttttt' };
    accounts.users.push(temp);
    try {
      expect((await call('GET', '/api/user', { headers: bearer(temp.token) })).status).toBe(200);
      accounts.users.splice(accounts.users.indexOf(temp), 1);
      expect((await call('PATCH', '/api/admin/users/temp2', { headers: { ...bearer(root.token), 'content-type': 'application/json' }, body: '{"suspended":true}' })).status).toBe(200);
      const after = await call('GET', '/api/user', { headers: bearer(temp.token) });
      expect([after.status, after.body]).toEqual([401, { error: 'Authentication required' }]);
    } finally {
      if (accounts.users.includes(temp)) accounts.users.splice(accounts.users.indexOf(temp), 1);
    }
  });

  it('when a user is suspended while their authentication is cached, then Authorize\'s refusal is a 401 (git with the challenge)', async () => {
    const temp = { id: 'u-temp3', username: 'temp3', token: 'temp3-token-tttttttttttttttttt', suspended: false };
    accounts.users.push(temp);
    try {
      expect((await call('GET', '/api/user', { headers: bearer(temp.token) })).status).toBe(200);
      temp.suspended = true;
      const git = await call('GET', '/alice/demo.git/info/refs?service=git-upload-pack', { headers: basic('temp3', temp.token) });
      expect([git.status, git.body, git.headers.get('www-authenticate')]).toEqual([401, { error: 'Authentication required' }, 'Basic realm="githost"']);
    } finally {
      accounts.users.splice(accounts.users.indexOf(temp), 1);
    }
  });
});

/** A request whose target is sent exactly as written (fetch would normalise it). */
function rawRequest(method: string, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest({ host: url.hostname, port: url.port, path: target, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
