import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Service } from '../src/index.js';
import type { RefVersions } from '../src/edge-cache/validators.js';
import { startFakeAccounts, type FakeAccounts } from './support/fake-accounts.js';
import { browseOnlyConfig, startFakeBrowse } from './support/fake-browse.js';

const SECRET = 'gateway-edge-test-internal-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };

let accounts: FakeAccounts;
let browse: Awaited<ReturnType<typeof startFakeBrowse>>;
let gateway: Service;
let base: string;
let metricsBase: string;
const versions = new Map<string, string>();
const refVersions: RefVersions = { version: (shard, repoId) => versions.get(`${shard}/${repoId}`) };

function push(repoId: string) {
  browse.push(repoId);
  versions.set(`default/${repoId}`, String(Number(versions.get(`default/${repoId}`) ?? 0) + 1));
}

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(base + path, { method, headers });
  await res.arrayBuffer();
  return { status: res.status, etag: res.headers.get('etag'), cacheControl: res.headers.get('cache-control') };
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${metricsBase}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  accounts = await startFakeAccounts([alice, bob], [
    { id: 'r-pub', owner: 'alice', name: 'demo', private: false, collaborators: {} },
    { id: 'r-priv', owner: 'alice', name: 'secret', private: true, collaborators: { [bob.id]: 'read' } },
    { id: 'r-cold', owner: 'alice', name: 'cold', private: false, collaborators: {} },
    { id: 'r-kept', owner: 'alice', name: 'kept', private: false, collaborators: {} },
    { id: 'r-vis', owner: 'alice', name: 'vis', private: false, collaborators: {} },
    { id: 'r-team', owner: 'alice', name: 'team', private: true, collaborators: { [bob.id]: 'read' } },
    { id: 'r-dflt', owner: 'alice', name: 'dflt', private: false, collaborators: {} },
  ], SECRET);
  browse = await startFakeBrowse(SECRET);
  versions.set('default/r-pub', '0');
  versions.set('default/r-priv', '0');
  for (const id of ['r-kept', 'r-vis', 'r-team', 'r-dflt']) versions.set(`default/${id}`, '0');
  const config = browseOnlyConfig(SECRET, accounts.address, browse.url);
  // Access answers not cached: a revoked collaborator is refused on the very next request.
  gateway = createServer(config, { refVersions, cacheTtls: { authorizedMs: 0 } });
  const ports = await gateway.start();
  base = `http://127.0.0.1:${ports.httpPort}`;
  metricsBase = `http://127.0.0.1:${ports.metricsPort}`;
});

afterAll(async () => {
  await gateway.stop();
  await browse.close();
  await accounts.close();
});

describe('gateway edge validators', () => {
  it('when a browse read was answered 200, then the same conditional read is answered 304 by the gateway alone, with browse\'s validators', async () => {
    const path = '/api/repos/alice/demo/tree/main';
    const first = await get(path);
    expect(first).toMatchObject({ status: 200, cacheControl: 'no-cache' });
    const before = browse.requests();
    const hitsBefore = await metric('githost_gateway_edge_validators_total', 'result="hit"');
    for (const method of ['GET', 'HEAD']) {
      expect(await get(path, { 'if-none-match': first.etag! }, method)).toEqual({ status: 304, etag: first.etag, cacheControl: 'no-cache' });
    }
    expect(await get(path, { 'if-none-match': `"other", W/${first.etag}` })).toMatchObject({ status: 304, etag: first.etag });
    expect(browse.requests()).toBe(before);
    expect(await metric('githost_gateway_edge_validators_total', 'result="hit"')).toBe(hitsBefore + 3);
  });

  it('when a push moved the branch, then the same conditional read goes to browse and gets 200 with a new ETag', async () => {
    const path = '/api/repos/alice/demo/tree/main?x=1';
    const first = await get(path);
    expect((await get(path, { 'if-none-match': first.etag! })).status).toBe(304);
    push('r-pub');
    const before = browse.requests();
    const after = await get(path, { 'if-none-match': first.etag! });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(first.etag);
    expect(browse.requests()).toBe(before + 1);
    // and the new answer is the one the edge now keeps
    expect(await get(path, { 'if-none-match': after.etag! })).toMatchObject({ status: 304, etag: after.etag });
    expect(browse.requests()).toBe(before + 1);
  });

  it('when the ref watch is not live for the repository, then every read goes to browse', async () => {
    const path = '/api/repos/alice/cold/tree/main';
    const first = await get(path);
    const before = browse.requests();
    expect((await get(path, { 'if-none-match': first.etag! })).status).toBe(304);
    expect(browse.requests()).toBe(before + 1);
  });

  it('when browse answers an error, then it is never kept', async () => {
    const path = '/api/repos/alice/demo/tree/missing';
    expect((await get(path)).status).toBe(404);
    const before = browse.requests();
    expect((await get(path, { 'if-none-match': '"anything"' })).status).toBe(404);
    expect(browse.requests()).toBe(before + 1);
  });

  it('when a reader of a private repository loses access, then the same conditional read is 404, never 304; anonymous is 404 too', async () => {
    const path = '/api/repos/alice/secret/tree/main';
    const auth = { authorization: `Bearer ${bob.token}` };
    const first = await get(path, auth);
    expect(first).toMatchObject({ status: 200, cacheControl: 'private, no-cache' });
    expect(await get(path, { ...auth, 'if-none-match': first.etag! })).toMatchObject({ status: 304, cacheControl: 'private, no-cache' });
    expect((await get(path, { 'if-none-match': first.etag! })).status).toBe(404);
    delete accounts.repos.find((r) => r.id === 'r-priv')!.collaborators[bob.id];
    expect((await get(path, { ...auth, 'if-none-match': first.etag! })).status).toBe(404);
  });
});

/** Everything but what belongs to one connection or one answer (Date, X-Request-Id). */
async function full(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(base + path, { method, headers });
  const body = await res.text();
  const kept: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!['date', 'x-request-id', 'connection', 'keep-alive'].includes(name)) kept[name] = value;
  });
  return { status: res.status, headers: kept, body };
}

const repoOf = (id: string) => accounts.repos.find((r) => r.id === id)!;

describe('gateway edge answers', () => {
  it('when a browse read was answered 200, then the same read is answered by the gateway alone with the same status, headers and body', async () => {
    const path = '/api/repos/alice/kept/tree/main';
    const first = await full(path);
    expect(first).toMatchObject({ status: 200, headers: { link: '</next>; rel="next"', 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' } });
    const before = browse.requests();
    const hitsBefore = await metric('githost_gateway_edge_answers_total', 'result="hit"');
    expect(await full(path)).toEqual(first);
    expect(await full(path, {}, 'HEAD')).toEqual({ ...first, body: '' });
    // A client holding the ETag still gets the 304 browse would send.
    expect(await get(path, { 'if-none-match': first.headers.etag! })).toEqual({ status: 304, etag: first.headers.etag, cacheControl: 'no-cache' });
    expect(await full(path, { 'if-none-match': '"stale"' })).toEqual(first);
    expect(browse.requests()).toBe(before);
    expect(await metric('githost_gateway_edge_answers_total', 'result="hit"')).toBe(hitsBefore + 3);
    expect(await metric('githost_gateway_edge_answers_bytes', '')).toBeGreaterThan(first.body.length);
  });

  it('when the answer is large, then the kept one is the same bytes', async () => {
    const path = '/api/repos/alice/kept/blob/main/big.txt';
    const first = await full(path);
    expect(first.body.length).toBeGreaterThan(20_000);
    const before = browse.requests();
    expect(await full(path)).toEqual(first);
    expect(browse.requests()).toBe(before);
  });

  it('when a push moved the refs, then the next read goes to browse and shows the new head', async () => {
    const path = '/api/repos/alice/kept/commits/main';
    expect(JSON.parse((await full(path)).body)).toMatchObject({ head: 0 });
    push('r-kept');
    const before = browse.requests();
    expect(JSON.parse((await full(path)).body)).toMatchObject({ head: 1 });
    expect(browse.requests()).toBe(before + 1);
    expect(JSON.parse((await full(path)).body)).toMatchObject({ head: 1 });
    expect(browse.requests()).toBe(before + 1);
  });

  it('when the URL names a full commit id, then the answer outlives ref changes and an unlive watch', async () => {
    const path = `/api/repos/alice/kept/tree/${'c'.repeat(40)}/src`;
    const first = await full(path);
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    push('r-kept');
    const before = browse.requests();
    expect(await full(path)).toEqual(first);
    const version = versions.get('default/r-kept')!;
    versions.delete('default/r-kept');
    try {
      expect(await full(path)).toEqual(first);
    } finally {
      versions.set('default/r-kept', version);
    }
    expect(browse.requests()).toBe(before);
  });

  it('when a repository turns private, then a caller who could read it before gets 404, never the kept body', async () => {
    const path = '/api/repos/alice/vis/tree/main';
    expect((await full(path)).status).toBe(200);
    expect((await full(path)).status).toBe(200);
    repoOf('r-vis').private = true;
    try {
      expect(await full(path)).toMatchObject({ status: 404, body: JSON.stringify({ error: 'Not found' }) });
      // The owner reads it with the private scope: a different entry from the public one.
      const owner = await full(path, { authorization: `Bearer ${alice.token}` });
      expect(owner).toMatchObject({ status: 200, headers: { 'cache-control': 'private, no-cache' } });
    } finally {
      repoOf('r-vis').private = false;
    }
  });

  it('when a collaborator is removed, then their next read is 404 although the answer they read is kept', async () => {
    const path = '/api/repos/alice/team/blob/main/README.md';
    const auth = { authorization: `Bearer ${bob.token}` };
    const first = await full(path, auth);
    expect(first).toMatchObject({ status: 200, headers: { 'cache-control': 'private, no-cache' } });
    const before = browse.requests();
    expect(await full(path, auth)).toEqual(first);
    expect(browse.requests()).toBe(before);
    expect((await full(path)).status).toBe(404);
    delete repoOf('r-team').collaborators[bob.id];
    expect(await full(path, auth)).toMatchObject({ status: 404, body: JSON.stringify({ error: 'Not found' }) });
    // The owner still reads the kept answer.
    expect(await full(path, { authorization: `Bearer ${alice.token}` })).toMatchObject({ status: 200 });
  });

  it('when the default branch changes, then a read without a ref is answered for the new branch', async () => {
    const path = '/api/repos/alice/dflt/tree/';
    expect(JSON.parse((await full(path)).body)).toMatchObject({ default_branch: 'main' });
    repoOf('r-dflt').defaultBranch = 'trunk';
    const before = browse.requests();
    expect(JSON.parse((await full(path)).body)).toMatchObject({ default_branch: 'trunk' });
    expect(browse.requests()).toBe(before + 1);
  });
});
