import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { Principal, RepoContext } from '@githost/identity';
import type { Authentication } from '../clients/accounts.js';
import type { CachedAccountsGateway } from '../clients/cached-accounts.js';
import { createEdgeAnswers } from './answers.js';
import { createEdgeReads, edgeRequestOf } from './reads.js';
import { createGatewayMetrics } from '../metrics.js';
import { createRateLimitGate, type RateLimits } from '../admission/rate-limit.js';
import { createTargetCheck } from '../request-checks/request-target.js';
import { createWarmReads } from './before-router.js';
import { Agent } from 'node:http';
import { decodeIdentity } from '@githost/identity';
import { createForwarding } from '../forwarding/forward.js';
import { createUpstreamProxies } from '../forwarding/upstreams.js';

const alice: Principal = { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false };
const demo: RepoContext = { id: 'r-1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'read', owner_id: 'u-alice' };
const secret: RepoContext = { ...demo, id: 'r-2', name: 'secret', private: true };
const TREE = '/api/repos/alice/demo/tree/main';
const BODY = '{"entries":[]}';

/** The accounts cache as it stands after earlier requests: these answers are cached, nothing else. */
function cachedOnly(tokens: Record<string, Authentication>, repos: Record<string, RepoContext>): CachedAccountsGateway {
  const unused = async (): Promise<never> => {
    throw new Error('the front never asks accounts');
  };
  return {
    authenticate: unused,
    authorize: unused,
    peekAuthentication: (token) => tokens[token],
    peekAuthorization: (principal, owner, name) => repos[`${principal?.username ?? 'anonymous'} ${owner}/${name}`],
    reachable: async () => true,
    close: () => undefined,
    forgetRepository: () => undefined,
    forgetUser: () => undefined,
    forgetUsername: () => undefined,
    forgetAuthentications: () => undefined,
  };
}

let server: Server | undefined;
let browse: Server | undefined;
const agent = new Agent({ keepAlive: true });
afterEach(async () => {
  agent.destroy();
  for (const s of [server, browse]) await new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve()));
  server = undefined;
  browse = undefined;
});

const SECRET = 'warm-reads-test-secret';
const COLD = `${TREE}?path=docs`;

/** A stand-in for browse: answers each read with validators (so the edge may keep it), recording the headers it got. */
async function standInBrowse() {
  const reached: { url: string; headers: Record<string, string | string[] | undefined> }[] = [];
  browse = createServer((req, res) => {
    reached.push({ url: req.url ?? '', headers: { ...req.headers } });
    const body = '{"entries":["cold"]}';
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, ETag: '"cold"', 'Cache-Control': 'no-cache' });
    res.end(body);
  });
  await new Promise<void>((resolve) => browse!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(browse.address() as AddressInfo).port}`, reached };
}

/** The front before a stand-in for the express app, which answers 599 and records what reached it. */
async function front(opts: { tokens?: Record<string, Authentication>; repos?: Record<string, RepoContext>; limits?: RateLimits; keep?: RepoContext[]; paths?: string[]; browse?: string } = {}) {
  const metrics = createGatewayMetrics();
  const answers = createEdgeAnswers({ version: () => 'v1' });
  for (const repo of opts.keep ?? [demo]) {
    for (const path of opts.paths ?? [TREE]) {
      answers.store(answers.pending(edgeRequestOf(repo, path.replace('demo', repo.name))), 200, { etag: '"e1"', 'cache-control': 'no-cache', 'content-type': 'application/json; charset=utf-8' }, Buffer.from(BODY));
    }
  }
  const observed: string[] = [];
  const reads = createEdgeReads(undefined, answers, metrics);
  const withinRateLimit = createRateLimitGate(opts.limits ?? { perTokenPerMinute: 0, anonymousPerMinute: 0 });
  const addressOf = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  const logger = pino({ level: 'silent' });
  // The app's own forwarding to browse, as server.ts gives it when browse is configured.
  const forward = opts.browse
    ? createForwarding({ proxies: createUpstreamProxies({ upstreams: { accounts: undefined, 'git-storage': undefined, browse: opts.browse, 'merge-requests': undefined, webhooks: undefined } }, { agent, logger, answers, metrics }), reads, internalSecret: SECRET, withinRateLimit, metrics, addressOf })
    : undefined;
  const warm = createWarmReads({
    accounts: cachedOnly(opts.tokens ?? {}, opts.repos ?? { 'anonymous alice/demo': demo }),
    reads,
    withinRateLimit,
    checkTarget: createTargetCheck(undefined),
    observe: (req, res, route) => {
      observed.push(`${req.url} ${route}`);
      res.setHeader('X-Request-Id', 'observed');
    },
    addressOf,
    internalSecret: SECRET,
    logger,
    metrics,
    ...(forward ? { forward } : {}),
  });
  const leftToApp: string[] = [];
  server = createServer((req, res) => {
    if (warm(req, res)) return;
    leftToApp.push(`${req.method} ${req.url}`);
    res.statusCode = 599;
    res.end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  // node's client, not fetch: fetch cannot send a GET with a body.
  const read = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    new Promise<{ status: number; body: string; requestId: string | null; remaining: string | null }>((resolve, reject) => {
      const req = request(base + path, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text, requestId: (res.headers['x-request-id'] as string | undefined) ?? null, remaining: (res.headers['ratelimit-remaining'] as string | undefined) ?? null }));
      });
      req.on('error', reject);
      req.end(init.body);
    });
  return {
    read,
    leftToApp,
    observed,
    hits: async () => (await metrics.edgeAnswers.get()).values.find((v) => v.labels.result === 'hit')?.value ?? 0,
    refused: async () => (await metrics.refused.get()).values.map((v) => [v.labels.status, v.value]),
    forwarded: async () => (await metrics.forwarded.get()).values.map((v) => [v.labels.upstream, v.labels.status, v.value]),
    misses: async () => (await metrics.edgeAnswers.get()).values.find((v) => v.labels.result === 'miss')?.value ?? 0,
  };
}

describe('warm reads answered before express', () => {
  it('when the caller\'s access is cached and the edge keeps a current answer, then the front sends it, observed and counted as an edge hit', async () => {
    const f = await front();
    expect(await f.read(TREE)).toEqual({ status: 200, body: BODY, requestId: 'observed', remaining: null });
    expect(await f.read(TREE, { method: 'HEAD' })).toEqual({ status: 200, body: '', requestId: 'observed', remaining: null });
    expect([f.leftToApp, f.observed, await f.hits()]).toEqual([[], [`${TREE} browse/browse`, `${TREE} browse/browse`], 2]);
  });

  it.each([
    ['a write', TREE, { method: 'POST', body: '{}' }],
    ['a body on a read', TREE, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': '2' }, body: '{}' }],
    ['a malformed escape', '/api/repos/alice/demo/tree/%ff', {}],
    ['a NUL in the query', `${TREE}?path=%00`, {}],
    ['another service\'s route', '/api/repos/alice/demo/merge-requests', {}],
    ['a read the edge keeps nothing for', `${TREE}?path=docs`, {}],
    ['a repository whose access is not cached', '/api/repos/alice/other/tree/main', {}],
    ['a malformed credential', TREE, { headers: { authorization: 'Bearer' } }],
    ['a token whose authentication is not cached', TREE, { headers: { authorization: 'Bearer unknown-token' } }],
  ])('when the request has %s, then the front leaves it to the app untouched', async (_case, path, init) => {
    const f = await front();
    const answer = await f.read(path, init);
    expect([answer.status, answer.requestId, f.observed, await f.hits()]).toEqual([599, null, [], 0]);
    expect(f.leftToApp).toHaveLength(1);
  });

  it('when a private repository\'s answer is kept, then only a caller whose cached access can read it gets it from the front', async () => {
    const reader: Authentication = { principal: alice, scopes: ['read'], expiresAt: null };
    const f = await front({
      tokens: { 'alice-token': reader },
      repos: { 'anonymous alice/secret': { ...secret, permission: 'none' }, 'alice alice/secret': { ...secret, permission: 'admin' } },
      keep: [secret],
    });
    const path = TREE.replace('demo', 'secret');
    expect((await f.read(path)).status).toBe(599);
    expect(await f.read(path, { headers: { authorization: 'Bearer alice-token' } })).toMatchObject({ status: 200, body: BODY });
    expect(f.leftToApp).toEqual([`GET ${path}`]);
  });

  it('when the caller\'s budget is spent, then the front answers 429 with the limiter\'s headers, and counts each read it answered', async () => {
    const f = await front({ limits: { perTokenPerMinute: 0, anonymousPerMinute: 2 } });
    const answers = [await f.read(TREE), await f.read(TREE), await f.read(TREE)];
    expect(answers.map((a) => [a.status, a.remaining])).toEqual([
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(answers[2]!.body).toBe('{"error":"Rate limit exceeded"}');
    expect([f.leftToApp, await f.hits(), await f.refused()]).toEqual([[], 2, [['429', 1]]]);
  });

  it('when a Gitea content read is kept for a caller who may read the repository, then the front sends it; a stranger to a private one, a query credential and a read the edge may not keep are left to the app (docs/decisions/gitea-api.md#warm-reads-at-the-edge)', async () => {
    const contents = '/api/v1/repos/alice/demo/contents/a.txt?ref=main';
    const pulls = '/api/v1/repos/alice/demo/pulls';
    const f = await front({ paths: [contents, pulls, `${contents}&token=t`] });
    expect(await f.read(contents)).toMatchObject({ status: 200, body: BODY, requestId: 'observed' });
    expect([(await f.read(pulls)).status, (await f.read(`${contents}&token=t`)).status]).toEqual([599, 599]);
    expect([f.observed, f.leftToApp]).toEqual([[`${contents} gitea-api/gitea`], [`GET ${pulls}`, `GET ${contents}&token=t`]]);
    const secretContents = contents.replace('demo', 'secret');
    const p = await front({ repos: { 'anonymous alice/secret': { ...secret, permission: 'none' } }, keep: [secret], paths: [contents] });
    expect([(await p.read(secretContents)).status, p.leftToApp]).toEqual([599, [`GET ${secretContents}`]]);
  });
});

describe('cold browse reads forwarded before express', () => {
  it('when the edge keeps no answer for a read the caller\'s cached access allows, then the front forwards it to browse signed as the caller, without the credential or a client\'s internal headers, counts it forwarded and keeps the answer for the next read', async () => {
    const b = await standInBrowse();
    const reader: Authentication = { principal: alice, scopes: ['read'], expiresAt: null };
    const f = await front({ browse: b.url, tokens: { 'alice-token': reader }, repos: { 'alice alice/demo': { ...demo, permission: 'write' } } });
    const headers = { authorization: 'Bearer alice-token', 'x-githost-client-address': '10.9.9.9', 'x-request-id': 'cold-1' };
    const first = await f.read(COLD, { headers });
    expect(first).toEqual({ status: 200, body: '{"entries":["cold"]}', requestId: 'observed', remaining: null });
    expect(b.reached).toHaveLength(1);
    const sent = b.reached[0]!;
    expect([sent.url, sent.headers.authorization, sent.headers['x-githost-client-address']]).toEqual([COLD, undefined, undefined]);
    // The token's read scope caps the cached write permission, as admission caps it.
    const identity = decodeIdentity(sent.headers, SECRET);
    expect([identity.principal?.username, identity.repo?.id, identity.repo?.permission]).toEqual(['alice', demo.id, 'read']);
    expect(await f.read(COLD, { headers })).toMatchObject({ status: 200, body: '{"entries":["cold"]}' });
    expect([b.reached.length, f.leftToApp, f.observed, await f.forwarded(), await f.misses(), await f.hits()]).toEqual([1, [], [`${COLD} browse/browse`, `${COLD} browse/browse`], [['browse', '200', 1]], 1, 1]);
  });

  it('when the caller\'s access is not cached, the caller may not read, or the route is not browse\'s, then the front leaves the read to the app and browse gets nothing', async () => {
    const b = await standInBrowse();
    const f = await front({ browse: b.url, repos: { 'anonymous alice/demo': demo, 'anonymous alice/secret': { ...secret, permission: 'none' } } });
    const contents = '/api/v1/repos/alice/demo/contents/docs?ref=main';
    for (const path of ['/api/repos/alice/other/tree/main', COLD.replace('demo', 'secret'), contents, '/api/repos/alice/demo/merge-requests']) expect((await f.read(path)).status).toBe(599);
    expect([b.reached, await f.forwarded()]).toEqual([[], []]);
  });

  it('when the caller\'s budget is spent, then the front answers 429 and forwards nothing', async () => {
    const b = await standInBrowse();
    const f = await front({ browse: b.url, limits: { perTokenPerMinute: 0, anonymousPerMinute: 1 } });
    expect([(await f.read(COLD)).status, (await f.read(`${COLD}/a`)).status]).toEqual([200, 429]);
    expect([b.reached.length, await f.refused(), await f.forwarded()]).toEqual([1, [['429', 1]], [['browse', '200', 1]]]);
  });

  it('when browse cannot be reached, then the front answers 503 with the one message, counted as forwarded', async () => {
    const b = await standInBrowse();
    await new Promise<void>((resolve) => browse!.close(() => resolve()));
    browse = undefined;
    const f = await front({ browse: b.url });
    expect(await f.read(COLD)).toMatchObject({ status: 503, body: '{"error":"Service unavailable"}' });
    expect(await f.forwarded()).toEqual([['browse', '503', 1]]);
  });
});
