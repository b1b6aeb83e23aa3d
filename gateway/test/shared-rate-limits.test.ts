import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { setLogSink } from '@githost/logging';
import { MACHINE_REDIS_URL, redisKeys, removeRedisKeys, sample, startOwnRedis, waitFor, type OwnRedis } from '@githost/test-support';
import { gatewaysPerTest, type GatewaySettings } from './support/gateways-per-test.js';

// Shared budgets across gateway replicas (docs/decisions/shared-rate-limits.md), against real Redis.
const SECRET = 'gateway-shared-rate-limit-test-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };
const { gatewayPorts } = gatewaysPerTest(SECRET, [alice, bob]);

const status = async (base: string, path: string, token?: string) => {
  const res = await fetch(base + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await res.arrayBuffer();
  return res.status;
};
const metric = async (metrics: string, name: string) => sample(await (await fetch(metrics)).text(), name);

/** Two gateways with the same settings, as two replicas behind one Service. */
async function twoReplicas(settings: GatewaySettings) {
  return [await gatewayPorts(settings), await gatewayPorts(settings)] as const;
}

describe('gateway replicas sharing one REDIS_URL', () => {
  const prefix = `githost-test:${randomUUID()}:`;
  afterAll(() => removeRedisKeys(MACHINE_REDIS_URL, prefix));

  it('when requests alternate between two replicas, then each budget admits its limit in total, not per replica', async () => {
    const [a, b] = await twoReplicas({
      rateLimits: { perTokenPerMinute: 10, anonymousPerMinute: 4, git: { perTokenPerMinute: 6, perAddressPerMinute: 100 } },
      rateLimitStore: { url: MACHINE_REDIS_URL, prefix },
    });
    const alternate = async (n: number, path: string, token?: string) => {
      const statuses = [];
      for (let i = 0; i < n; i++) statuses.push(await status((i % 2 ? a : b).base, path, token));
      return statuses;
    };
    const api = await alternate(16, '/api/user', alice.token);
    expect(api.filter((s) => s === 200)).toHaveLength(10);
    expect(api.slice(10)).toEqual([429, 429, 429, 429, 429, 429]);
    const anonymous = await alternate(8, '/api/repos/alice/demo');
    expect(anonymous).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    const git = await alternate(9, '/alice/demo.git/info/refs?service=git-upload-pack', bob.token);
    expect(git).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429]);
    // git is counted by bob's user id, the key the SSH service spends too; the REST token by its hash.
    const keys = redisKeys(MACHINE_REDIS_URL, prefix).map((k) => k.slice(prefix.length));
    expect(keys.filter((k) => k.startsWith('git:'))).toEqual(['git:user:u-bob']);
    expect(keys.filter((k) => k.startsWith('api-token:')).map((k) => /^api-token:token:[0-9a-f]{64}$/.test(k))).toEqual([true]);
    expect(keys.some((k) => k.includes(alice.token) || k.includes(bob.token))).toBe(false);
    expect(await metric(a.metrics, 'githost_gateway_rate_limit_store_up')).toBe(1);
  });
});

describe('gateway replicas when their Redis stops (docs/decisions/shared-rate-limits.md#when-redis-is-down)', () => {
  let redis: OwnRedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('when Redis stops, then each replica counts its own with one log line and the metric, and once Redis is back they share again without a restart', async () => {
    const lines: Array<{ msg: string; level: number }> = [];
    setLogSink({ level: 'info', destination: new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as { msg: string; level: number }), done()) }) });
    const [a, b] = await twoReplicas({ rateLimits: { perTokenPerMinute: 3, anonymousPerMinute: 1000 }, rateLimitStore: { url: redis.url, prefix: 'gw:' } }).finally(() => setLogSink(undefined));
    const storeLines = () => lines.filter((l) => l.msg.startsWith('rate limits: Redis')).map((l) => [l.level, l.msg]);

    expect([await status(a.base, '/api/user', alice.token), await status(b.base, '/api/user', alice.token)]).toEqual([200, 200]);
    await redis.stop();
    // Failing to this process's count: neither open (no limit at all) nor closed (every request refused).
    const local = [];
    for (let i = 0; i < 4; i++) local.push(await status(a.base, '/api/user', alice.token));
    expect(local).toEqual([200, 200, 200, 429]);
    expect(await status(b.base, '/api/user', alice.token)).toBe(200);
    expect([await metric(a.metrics, 'githost_gateway_rate_limit_store_up'), (await metric(a.metrics, 'githost_gateway_rate_limit_store_errors_total'))! >= 1]).toEqual([0, true]);
    const down = [50, 'rate limits: Redis does not answer, each process counts its own until it does'];
    expect(storeLines()).toEqual([down, down]);

    await redis.start();
    for (const replica of [a, b]) {
      await waitFor(async () => (await status(replica.base, '/api/repos/alice/demo')) === 200 && (await metric(replica.metrics, 'githost_gateway_rate_limit_store_up')) === 1, 'the replica sharing again');
    }
    // The restarted Redis is empty: bob's budget of 3 is one again across both replicas.
    const shared = [];
    for (let i = 0; i < 4; i++) shared.push(await status((i % 2 ? a : b).base, '/api/user', bob.token));
    expect(shared).toEqual([200, 200, 200, 429]);
    const back = [40, 'rate limits: Redis answers again, counters are shared across replicas'];
    expect(storeLines()).toEqual([down, down, back, back]);
  });
});
