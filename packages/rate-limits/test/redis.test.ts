import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import client from 'prom-client';
import { createLogger, setLogSink } from '@githost/logging';
import { MACHINE_REDIS_URL, redisCli, redisKeys, removeRedisKeys, sample, startOwnRedis, waitFor, type OwnRedis } from '@githost/test-support';
import { BUDGETS, createLimitStores, LEASE_IDLE_MS, leaseSize, MAX_LEASE, type BudgetName, type LimitStores } from '../src/index.js';

/** Log lines written by loggers made while collecting. */
function collectLogs(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  setLogSink({ level: 'info', destination: new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()) }) });
  const logger = createLogger('rate-limits-test');
  setLogSink(undefined);
  return { lines, logger };
}

const opened: LimitStores[] = [];
const open = (settings: Parameters<typeof createLimitStores>[0]) => {
  const stores = createLimitStores(settings);
  opened.push(stores);
  return stores;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

describe('limit stores sharing the machine Redis (docs/decisions/shared-rate-limits.md)', () => {
  const prefix = `githost-test:${randomUUID()}:`;
  afterAll(() => removeRedisKeys(MACHINE_REDIS_URL, prefix));

  it('when two processes spend one budget, then they admit the limit in total, under keys with the prefix that expire with the window', async () => {
    const a = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const b = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const admitted = [];
    for (let i = 0; i < 10; i++) admitted.push(await (i % 2 ? a : b).spend(BUDGETS.git, 'user:u-1', 6));
    expect(admitted.filter(Boolean)).toHaveLength(6);
    expect(admitted.slice(6)).toEqual([false, false, false, false]);
    expect(redisKeys(MACHINE_REDIS_URL, prefix)).toEqual([`${prefix}git:user:u-1`]);
    expect(redisCli(MACHINE_REDIS_URL, 'GET', `${prefix}git:user:u-1`)).toBe('10');
    const ttl = Number(redisCli(MACHINE_REDIS_URL, 'PTTL', `${prefix}git:user:u-1`));
    expect(ttl > 0 && ttl <= 60_000).toBe(true);
    expect([a.shared, a.sharedNow, b.sharedNow]).toEqual([true, true, true]);
  });
});

describe('leases: one round trip takes several units of a large budget (docs/decisions/shared-rate-limits.md#leases)', () => {
  const prefix = `githost-test:${randomUUID()}:`;
  afterAll(() => removeRedisKeys(MACHINE_REDIS_URL, prefix));
  const count = (key: string) => Number(redisCli(MACHINE_REDIS_URL, 'GET', `${prefix}${key}`));
  /** A budget's store as express-rate-limit sets it up (it passes the limit to `init`). */
  const limiter = (stores: LimitStores, budget: BudgetName, limit: number) => {
    const store = stores.store(budget);
    store.init?.({ limit, windowMs: 60_000 } as never);
    return async (key: string) => (await store.increment(key)).totalHits <= limit;
  };

  it('when a budget is under 200 a minute, then every request is one round trip, as before', () => {
    expect([leaseSize(1), leaseSize(199), leaseSize(200), leaseSize(600), leaseSize(1200), leaseSize(100_000_000)]).toEqual([1, 1, 2, 6, 12, MAX_LEASE]);
  });

  it('when two processes spend one budget of 1,000 in turns, then they admit exactly 1,000 in all, Redis counting each lease once, and a process that stops gives its unspent units back', async () => {
    const a = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const b = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const [spendA, spendB] = [limiter(a, BUDGETS.apiToken, 1000), limiter(b, BUDGETS.apiToken, 1000)];
    // One unit first: its lease of 10 is taken, 9 left here.
    expect(await spendA('token:t-1')).toBe(true);
    expect(count('api-token:token:t-1')).toBe(10);
    // Nine more from the lease: Redis is not asked.
    for (let i = 0; i < 9; i++) expect(await spendA('token:t-1')).toBe(true);
    expect(count('api-token:token:t-1')).toBe(10);
    let admitted = 10;
    for (let i = 0; i < 1100; i++) if (await (i % 3 ? spendA : spendB)('token:t-1')) admitted += 1;
    expect(admitted).toBe(1000);
    // Past the budget nothing more is taken: the 1,000 admitted, no lease left anywhere.
    expect(count('api-token:token:t-1')).toBe(1000);
    // A lease half spent, then the process stops: the rest goes back.
    expect(await spendA('token:t-2')).toBe(true);
    expect(count('api-token:token:t-2')).toBe(10);
    await a.close();
    opened.splice(opened.indexOf(a), 1);
    expect(count('api-token:token:t-2')).toBe(1);
  });

  it('when a process holds units it does not spend, then they go back after LEASE_IDLE_MS, and the other process can spend the whole budget', async () => {
    const a = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const b = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    const [spendA, spendB] = [limiter(a, BUDGETS.git, 500), limiter(b, BUDGETS.git, 500)];
    expect(await spendA('user:idle')).toBe(true);
    let admitted = 1;
    while (await spendB('user:idle')) admitted += 1;
    // a holds 4 of its lease of 5: b is refused 4 short of the budget, and its refusals take nothing.
    expect(admitted).toBe(496);
    expect(count('git:user:idle')).toBe(500);
    await waitFor(() => count('git:user:idle') === 496, 'the idle lease given back', LEASE_IDLE_MS * 5);
    while (await spendB('user:idle')) admitted += 1;
    expect(admitted).toBe(500);
  });

  it('when the SSH service spends (a process per command in OpenSSH mode), then each spend is one round trip and takes no lease', async () => {
    const a = open({ url: MACHINE_REDIS_URL, prefix, service: 'test' });
    expect(await a.spend(BUDGETS.git, 'user:ssh', 6000)).toBe(true);
    expect(await a.spend(BUDGETS.git, 'user:ssh', 6000)).toBe(true);
    expect(count('git:user:ssh')).toBe(2);
  });
});

describe('limit stores when Redis stops answering (docs/decisions/shared-rate-limits.md#when-redis-is-down)', () => {
  let redis: OwnRedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('when Redis stops, then each process counts its own with one log line and the gauge at 0, and when it is back, counts are shared again without a restart', async () => {
    const { lines, logger } = collectLogs();
    const registry = new client.Registry();
    const a = open({ url: redis.url, prefix: 'down:', service: 'test', logger, registry, retryMs: 50 });
    const b = open({ url: redis.url, prefix: 'down:', service: 'test', retryMs: 50 });
    expect([await a.spend(BUDGETS.git, 'user:u', 3), await b.spend(BUDGETS.git, 'user:u', 3)]).toEqual([true, true]);
    expect(sample(await registry.metrics(), 'githost_test_rate_limit_store_up')).toBe(1);

    await redis.stop();
    // Counted in each process: a's own budget of 3, whatever b spent before or spends now.
    const local = [];
    for (let i = 0; i < 4; i++) local.push(await a.spend(BUDGETS.git, 'user:u', 3));
    expect(local).toEqual([true, true, true, false]);
    expect(await b.spend(BUDGETS.git, 'user:u', 3)).toBe(true);
    const text = await registry.metrics();
    expect(sample(text, 'githost_test_rate_limit_store_up')).toBe(0);
    expect(sample(text, 'githost_test_rate_limit_store_errors_total')! >= 1).toBe(true);
    expect(sample(text, 'githost_test_rate_limit_local_counts_total')).toBe(4);
    const down = lines.filter((l) => String(l.msg).startsWith('rate limits: Redis'));
    expect(down.map((l) => [l.level, l.msg])).toEqual([[50, 'rate limits: Redis does not answer, each process counts its own until it does']]);

    await redis.start();
    await waitFor(async () => (await a.spend(BUDGETS.git, 'user:back', 100), a.sharedNow), 'a sharing again');
    await waitFor(async () => (await b.spend(BUDGETS.git, 'user:back', 100), b.sharedNow), 'b sharing again');
    // The restarted Redis is empty: the two share a fresh budget of 3.
    const shared = [];
    for (let i = 0; i < 4; i++) shared.push(await (i % 2 ? a : b).spend(BUDGETS.git, 'user:v', 3));
    expect(shared).toEqual([true, true, true, false]);
    expect(sample(await registry.metrics(), 'githost_test_rate_limit_store_up')).toBe(1);
    expect(lines.filter((l) => String(l.msg).startsWith('rate limits: Redis')).map((l) => l.msg)).toEqual([
      'rate limits: Redis does not answer, each process counts its own until it does',
      'rate limits: Redis answers again, counters are shared across replicas',
    ]);
  });

  it('when Redis hangs (CLIENT PAUSE), then a request waits no longer than the timeout and is counted here', async () => {
    const registry = new client.Registry();
    const a = open({ url: redis.url, prefix: 'paused:', service: 'test', registry, timeoutMs: 100, retryMs: 50 });
    expect(await a.spend(BUDGETS.apiToken, 'token:x', 2)).toBe(true);
    redisCli(redis.url, 'CLIENT', 'PAUSE', '3000', 'ALL');
    try {
      expect([await a.spend(BUDGETS.apiToken, 'token:x', 2), await a.spend(BUDGETS.apiToken, 'token:x', 2), await a.spend(BUDGETS.apiToken, 'token:x', 2)]).toEqual([true, true, false]);
      expect([a.sharedNow, sample(await registry.metrics(), 'githost_test_rate_limit_store_up')]).toEqual([false, 0]);
    } finally {
      redisCli(redis.url, 'CLIENT', 'UNPAUSE');
    }
    await waitFor(async () => (await a.spend(BUDGETS.apiToken, 'token:y', 100), a.sharedNow), 'sharing after the pause');
  });

  it('when Redis is down from the start, then requests are counted here and it is used once it comes up', async () => {
    await redis.stop();
    const { lines, logger } = collectLogs();
    const a = open({ url: redis.url, prefix: 'late:', service: 'test', logger, retryMs: 50 });
    expect([await a.spend(BUDGETS.git, 'user:w', 1), await a.spend(BUDGETS.git, 'user:w', 1)]).toEqual([true, false]);
    expect(lines.map((l) => l.msg)).toEqual(['rate limits: Redis does not answer, each process counts its own until it does']);
    await redis.start();
    await waitFor(async () => (await a.spend(BUDGETS.git, 'user:z', 100), a.sharedNow), 'sharing once Redis is up');
    expect(redisKeys(redis.url, 'late:')).toEqual(['late:git:user:z']);
  });
});
