import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { encodeIdentity } from '@githost/identity';
import { createLogger } from '@githost/logging';
import { conflict } from '@githost/errors';
import client from 'prom-client';
import { createHttpApp, createRegistry, express, finish, identityOf, listen, MetricsEndpoint, route, serveHttp, serveMetrics, type Listening, type MetricsListening } from './index.js';

const secret = 'test-internal-secret-123';
let server: Listening;
let base: string;
let metricsServer: MetricsListening;
let metricsBase: string;

beforeAll(async () => {
  let ready = false;
  const registry = createRegistry('demo');
  const app = createHttpApp({ service: 'demo', logger: createLogger('demo', 'silent'), internalSecret: secret, ready: { demo: async () => ready }, registry });
  app.post('/echo', route((req, res) => res.json({ body: req.body as unknown, user: identityOf(res).principal?.username })));
  app.get('/conflict', route(() => {
    throw conflict('Merge conflict', { conflicts: ['a'] });
  }));
  app.get('/boom', route(() => {
    throw new Error('hidden detail');
  }));
  app.post('/ready', route((_req, res) => {
    ready = true;
    res.status(204).end();
  }));
  const things = express.Router();
  things.get('/:id', route((req, res) => res.json({ id: req.params.id })));
  app.use('/api/things', things);
  app.use((req, res, next) => {
    if (!req.path.startsWith('/self/')) return next();
    res.locals.routeLabel = '/self/:name';
    res.json({ ok: true });
  });
  server = await listen(finish(app), 0, '127.0.0.1');
  base = `http://127.0.0.1:${server.port}`;
  metricsServer = await serveMetrics(registry, 0, '127.0.0.1');
  metricsBase = `http://127.0.0.1:${metricsServer.port}`;
});
afterAll(() => Promise.all([server.close(), metricsServer.close()]));

const signed = (extra: Record<string, string> = {}) => ({
  ...encodeIdentity({ principal: { user_id: 'u1', username: 'alice', email: 'a@x', is_admin: false }, repo: null, request_id: 'r', issued_at: Date.now() }, secret),
  ...extra,
});

describe('createHttpApp', () => {
  it('when a signed request carries JSON, then the handler sees body and identity', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': 'application/json' }), body: '{"a":1}' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: { a: 1 }, user: 'alice' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
  it('when the identity is missing, then 401 JSON', async () => {
    const res = await fetch(`${base}/echo`, { method: 'POST' });
    expect([res.status, await res.json()]).toEqual([401, { error: 'Missing internal identity' }]);
  });
  it('when the JSON is malformed or too large, then 400 Invalid JSON body / 413', async () => {
    const bad = await fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': 'application/json' }), body: '{"a":' });
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'Invalid JSON body' }]);
    const big = await fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': 'application/json' }), body: JSON.stringify({ a: 'x'.repeat(1_100_000) }) });
    expect(big.status).toBe(413);
  });
  it('when a JSON string or key holds a NUL, then 400 naming the field and the handler never runs', async () => {
    const post = (body: string) => fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': 'application/json' }), body });
    const title = await post('{"title":"a\\u0000b"}');
    expect([title.status, await title.json()]).toEqual([400, { error: 'title must not contain NUL characters' }]);
    const nested = await post('{"files":[{"path":"ok"},{"path":"x\\u0000"}]}');
    expect([nested.status, await nested.json()]).toEqual([400, { error: 'files[1].path must not contain NUL characters' }]);
    const fine = await post('{"title":"a\\u0001b"}');
    expect(fine.status).toBe(200);
  });

  it('when a JSON body nests 20,000 levels deep, then 400 naming the limit before it is parsed, in UTF-8 and UTF-16; 64 levels pass', async () => {
    const post = (body: string | Buffer, type = 'application/json') => fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': type }), body });
    const deep = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const refused = await post(deep);
    expect([refused.status, await refused.json()]).toEqual([400, { error: 'JSON body nested deeper than 64 levels' }]);
    const utf16 = await post(Buffer.from(deep, 'utf16le'), 'application/json; charset=utf-16le');
    expect([utf16.status, await utf16.json()]).toEqual([400, { error: 'JSON body nested deeper than 64 levels' }]);
    const atLimit = await post(`${'['.repeat(64)}${']'.repeat(64)}`);
    expect(atLimit.status).toBe(200);
  });

  it('when the body cannot be decoded or a path parameter does not decode, then 415 / 400 JSON, never 500', async () => {
    const post = (headers: Record<string, string>, body: string | Buffer) => fetch(`${base}/echo`, { method: 'POST', headers: signed({ 'content-type': 'application/json', ...headers }), body });
    const charset = await post({ 'content-type': 'application/json; charset=utf-99' }, '{}');
    expect([charset.status, await charset.json()]).toEqual([415, { error: 'Unsupported charset "UTF-99"' }]);
    const encoding = await post({ 'content-encoding': 'compress' }, '{}');
    expect([encoding.status, await encoding.json()]).toEqual([415, { error: 'Unsupported Content-Encoding: compress' }]);
    const gzip = await post({ 'content-encoding': 'gzip' }, Buffer.from('not gzip'));
    expect([gzip.status, await gzip.json()]).toEqual([400, { error: 'Malformed compressed request body (Content-Encoding)' }]);
    const param = await fetch(`${base}/api/things/%ff`, { headers: signed() });
    expect([param.status, await param.json()]).toEqual([400, { error: 'Malformed percent-encoding in the path' }]);
  });

  it('when a handler throws an AppError or anything else, then the table decides and nothing leaks', async () => {
    const c = await fetch(`${base}/conflict`, { headers: signed() });
    expect([c.status, await c.json()]).toEqual([409, { error: 'Merge conflict', conflicts: ['a'] }]);
    const b = await fetch(`${base}/boom`, { headers: signed() });
    expect([b.status, await b.json()]).toEqual([500, { error: 'Internal server error' }]);
    const u = await fetch(`${base}/nowhere`, { headers: signed() });
    expect([u.status, await u.json()]).toEqual([404, { error: 'Not found' }]);
  });
  it('when a dependency is not ready, then /readyz is 503 naming it until it is; /healthz always 200', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const waiting = await fetch(`${base}/readyz`);
    expect([waiting.status, await waiting.json()]).toEqual([503, { status: 'unavailable', failing: ['demo'] }]);
    await fetch(`${base}/ready`, { method: 'POST', headers: signed() });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${metricsBase}/metrics`)).text();
    expect(metrics).toContain('githost_demo_http_request_duration_seconds_count');
  });
  it('when requests hit a route of a mounted router, a plain route, a self-named handler and no route, then the histogram labels them by pattern and status', async () => {
    await fetch(`${base}/api/things/42`, { headers: signed() });
    await fetch(`${base}/api/things/43`, { headers: signed() });
    await fetch(`${base}/conflict`, { headers: signed() });
    await fetch(`${base}/nowhere/else`, { headers: signed() });
    await fetch(`${base}/self/x`, { headers: signed() });
    const metrics = await (await fetch(`${metricsBase}/metrics`)).text();
    const count = (route: string, status: string) =>
      metrics.split('\n').find((l) => l.startsWith('githost_demo_http_request_duration_seconds_count{') && l.includes(`method="GET",route="${route}",status="${status}"`))?.split(' ')[1];
    expect([count('/api/things/:id', '200'), count('/conflict', '409'), count('unmatched', '404'), count('/self/:name', '200')]).toEqual(['2', '2', '2', '1']);
    expect(metrics).not.toContain('/api/things/42');
  });
});

describe('serveMetrics', () => {
  it('when the metrics port is asked, then it serves the registry as Prometheus text and nothing else; the main port serves no metrics', async () => {
    expect(metricsServer.port).not.toBe(server.port);
    const res = await fetch(`${metricsBase}/metrics`);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/plain; version=0.0.4; charset=utf-8']);
    expect(await res.text()).toContain('# TYPE githost_demo_http_request_duration_seconds histogram');
    const other = await fetch(`${metricsBase}/healthz`);
    expect([other.status, await other.json()]).toEqual([404, { error: 'Not found' }]);
    const main = await fetch(`${base}/metrics`, { headers: signed() });
    expect([main.status, await main.json()]).toEqual([404, { error: 'Not found' }]);
  });
});

describe('serveHttp', () => {
  it('when a service starts, then its app answers on one port and its registry on another, until it is closed', async () => {
    const registry = createRegistry('gamma');
    new client.Counter({ name: 'githost_gamma_things_total', help: 'things', registers: [registry] }).inc(4);
    const app = express();
    app.get('/hello', (_req, res) => void res.json({ hello: 'world' }));
    const serving = await serveHttp(app, registry, { httpPort: 0, metricsPort: 0, bindHost: '127.0.0.1' }, { service: 'gamma', logger: createLogger('gamma') });
    const { httpPort, metricsPort } = serving.ports;
    expect(httpPort).not.toBe(metricsPort);
    expect(await (await fetch(`http://127.0.0.1:${httpPort}/hello`)).json()).toEqual({ hello: 'world' });
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toContain('githost_gamma_things_total{service="gamma"} 4');
    await serving.close();
    const refused = await Promise.all([httpPort, metricsPort].map((port) => fetch(`http://127.0.0.1:${port}/hello`).then(() => 'answered', () => 'refused')));
    expect(refused).toEqual(['refused', 'refused']);
  });
});

describe('MetricsEndpoint', () => {
  it('when several registries share one endpoint, then one scrape has each family once, equal series added up, and a closed one is gone', async () => {
    const endpoint = new MetricsEndpoint();
    await endpoint.listen(0, '127.0.0.1');
    try {
      const registries = [createRegistry('alpha'), createRegistry('beta'), createRegistry('beta')];
      new client.Counter({ name: 'githost_alpha_things_total', help: 'things', registers: [registries[0]!] }).inc(2);
      for (const registry of registries.slice(1)) new client.Counter({ name: 'githost_beta_things_total', help: 'things', registers: [registry] }).inc(3);
      const served = await Promise.all(registries.map((r) => serveMetrics(r, 1, '127.0.0.1', endpoint)));
      expect(new Set(served.map((s) => s.port)).size).toBe(1);
      const scrape = async () => (await fetch(`http://127.0.0.1:${served[0]!.port}/metrics`)).text();
      const text = await scrape();
      expect(text.split('\n').filter((l) => l.startsWith('githost_'))).toEqual(['githost_alpha_things_total{service="alpha"} 2', 'githost_beta_things_total{service="beta"} 6']);
      expect(text.match(/# TYPE githost_beta_things_total/g)).toHaveLength(1);
      await served[0]!.close();
      expect(await scrape()).not.toContain('githost_alpha');
    } finally {
      await endpoint.close();
    }
  });
});
