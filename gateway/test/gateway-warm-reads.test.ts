import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { createServer, type Config, type Service } from '../src/index.js';
import type { RefVersions } from '../src/edge-cache/validators.js';
import { startFakeAccounts, type FakeAccounts } from './support/fake-accounts.js';
import { browseOnlyConfig, startFakeBrowse } from './support/fake-browse.js';

const SECRET = 'gateway-warm-reads-test-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const refVersions: RefVersions = { version: () => '0' };

let accounts: FakeAccounts;
let browse: Awaited<ReturnType<typeof startFakeBrowse>>;
const gateways: Service[] = [];
const lines: Record<string, unknown>[] = [];

/** A gateway with the defaults a user gets (accounts cache, edge cache), but for `over`. */
async function gateway(over: Partial<Config> = {}) {
  const config: Config = { ...browseOnlyConfig(SECRET, accounts.address, browse.url), ...over };
  const logger = pino({ level: 'info', messageKey: 'msg' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const service = createServer(config, { refVersions, logger });
  gateways.push(service);
  const ports = await service.start();
  return { base: `http://127.0.0.1:${ports.httpPort}`, metrics: `http://127.0.0.1:${ports.metricsPort}/metrics` };
}

async function read(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const kept = [...res.headers].filter(([name]) => !['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset'].includes(name));
  return { status: res.status, headers: kept, body: await res.text(), requestId: res.headers.get('x-request-id'), remaining: res.headers.get('ratelimit-remaining') };
}

async function metric(url: string, name: string, labels: string[]): Promise<number> {
  const text = await (await fetch(url)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.every((label) => l.includes(label)));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  accounts = await startFakeAccounts([alice], [
    { id: 'r-pub', owner: 'alice', name: 'demo', private: false, collaborators: {} },
    { id: 'r-priv', owner: 'alice', name: 'secret', private: true, collaborators: {} },
  ], SECRET);
  browse = await startFakeBrowse(SECRET);
});

afterAll(async () => {
  for (const g of gateways) await g.stop();
  await browse.close();
  await accounts.close();
});

describe('warm browse reads answered before the gateway\'s router', () => {
  it('when a read is warm, then its answer is the forwarded one, with its own request id, log line and latency count', async () => {
    const g = await gateway();
    const path = '/api/repos/alice/demo/tree/main';
    const cold = await read(g.base + path);
    const before = browse.requests();
    const latency = ['route="browse/browse"', 'status="200"'];
    const countBefore = await metric(g.metrics, 'githost_gateway_http_request_duration_seconds_count', latency);
    const warm = await read(g.base + path, { 'x-request-id': 'warm-read-1' });
    expect(warm).toEqual({ ...cold, requestId: 'warm-read-1' });
    expect(browse.requests()).toBe(before);
    expect(await metric(g.metrics, 'githost_gateway_http_request_duration_seconds_count', latency)).toBe(countBefore + 1);
    expect(await metric(g.metrics, 'githost_gateway_edge_answers_total', ['result="hit"'])).toBe(1);
    expect(lines.filter((l) => l.request_id === 'warm-read-1').map((l) => [l.msg, l.req, l.res])).toEqual([['request completed', { method: 'GET', url: path }, { status: 200 }]]);
  });

  it('when a private repository\'s answer is kept for its owner, then anonymous and a bad token still get what the router answers', async () => {
    const g = await gateway();
    const path = '/api/repos/alice/secret/tree/main';
    const auth = { authorization: `Bearer ${alice.token}` };
    expect((await read(g.base + path, auth)).status).toBe(200);
    expect((await read(g.base + path, auth)).status).toBe(200);
    expect(await read(g.base + path)).toMatchObject({ status: 404, body: '{"error":"Not found"}' });
    expect(await read(g.base + path, { authorization: 'Bearer not-a-token' })).toMatchObject({ status: 401 });
    expect(await metric(g.metrics, 'githost_gateway_edge_answers_total', ['result="hit"'])).toBe(1);
  });

  it('when reads are warm, then they spend the client address\'s budget, behind a trusted proxy the address it names', async () => {
    const g = await gateway({ rateLimits: { perTokenPerMinute: 600, anonymousPerMinute: 3 }, trustProxy: 'loopback' });
    const path = '/api/repos/alice/demo/tree/main?limits=1';
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const first = [];
    for (let i = 0; i < 4; i++) first.push(await read(g.base + path, from('203.0.113.7')));
    expect(first.map((r) => [r.status, r.remaining])).toEqual([
      [200, '2'],
      [200, '1'],
      [200, '0'],
      [429, '0'],
    ]);
    expect(first[3]!.body).toBe('{"error":"Rate limit exceeded"}');
    expect((await read(g.base + path, from('203.0.113.8'))).remaining).toBe('2');
    // Two of the first address's reads were warm, the other address's one too.
    expect(await metric(g.metrics, 'githost_gateway_edge_answers_total', ['result="hit"'])).toBe(3);
  });
});
