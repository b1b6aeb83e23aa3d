import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeIdentity } from '@githost/identity';
import { createServer, type Config, type Service } from '../src/index.js';
import type { RefVersions } from '../src/edge-validators.js';
import { startFakeAccounts, type FakeAccounts } from './fake-accounts.js';

const SECRET = 'gateway-edge-test-internal-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };

/**
 * A browse stand-in answering as browse does: the ETag a function of the repository's head and
 * the URL, 304 on a matching If-None-Match, `no-cache` or `private, no-cache`; counts requests.
 */
async function startFakeBrowse(secret: string) {
  const heads = new Map<string, number>();
  let requests = 0;
  const server: Server = createHttpServer((req, res) => {
    requests++;
    const identity = decodeIdentity(req.headers, secret);
    const repo = identity.repo!;
    const etag = `"${repo.id}-${heads.get(repo.id) ?? 0}-${Buffer.from(req.url ?? '').toString('base64url')}"`;
    if (req.url?.includes('/missing')) {
      res.statusCode = 404;
      res.end('{"error":"Not found"}');
      return;
    }
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', repo.private ? 'private, no-cache' : 'no-cache');
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ head: heads.get(repo.id) ?? 0 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    /** A push: the head moves, and so does the watch's version (before the push returns). */
    push(repoId: string) {
      heads.set(repoId, (heads.get(repoId) ?? 0) + 1);
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

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
  ], SECRET);
  browse = await startFakeBrowse(SECRET);
  versions.set('default/r-pub', '0');
  versions.set('default/r-priv', '0');
  const config: Config = {
    port: 0,
    metricsPort: 0,
    internalSecret: SECRET,
    accountsGrpcAddress: accounts.address,
    upstreams: { accounts: undefined, 'git-storage': undefined, browse: browse.url, 'merge-requests': undefined, webhooks: undefined },
  };
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
