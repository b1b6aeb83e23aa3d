import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, migrate, openDatabase, type Database, type PageRequest } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgDeliveryStore } from '../src/db/delivery-store.js';
import { PgWebhookStore } from '../src/db/webhook-store.js';
import type { ClaimedDelivery } from '../src/domain/types.js';

const backends: Array<[string, () => Promise<{ db: Database; done: () => Promise<void> }>]> = [
  [
    'Postgres',
    async () => {
      const t = await createTestDatabase('githost_webhooks_retention');
      const db = await openDatabase({ url: t.url, schema: 'webhooks' });
      return { db, done: async () => (await db.close(), await t.drop()) };
    },
  ],
  [
    'PGlite',
    async () => {
      const db = await openDatabase({ schema: 'webhooks' });
      return { db, done: () => db.close() };
    },
  ],
];

/** `count` deliveries of one webhook, the n-th `n` hours old (n from 1), in the given state. */
async function addDeliveries(db: Database, hookId: string, count: number, opts: { status?: string; hoursOld?: number; tag?: string } = {}) {
  await db.query(
    `INSERT INTO deliveries (id, webhook_id, event_id, event, payload, status, attempts, created_at)
     SELECT gen_random_uuid(), $1, $4 || n, 'push', '{"n":1}', $2, 1, now() - ($3 + n) * interval '1 hour' FROM generate_series(1, $5::int) AS n`,
    [hookId, opts.status ?? 'delivered', opts.hoursOld ?? 0, opts.tag ?? `${randomUUID()}-`, count],
  );
  await db.query(
    `INSERT INTO delivery_attempts (delivery_id, number, status, duration_ms, response_status, response_body)
     SELECT id, 1, 'succeeded', 3, 200, repeat('x', 100) FROM deliveries WHERE webhook_id = $1 AND NOT EXISTS (SELECT 1 FROM delivery_attempts a WHERE a.delivery_id = deliveries.id)`,
    [hookId],
  );
}

describe.each(backends)('webhook delivery log paging and retention on %s', (_name, open) => {
  let db: Database;
  let done: () => Promise<void>;
  let deliveries: PgDeliveryStore;
  let webhooks: PgWebhookStore;
  const hook = async () => (await webhooks.create(randomUUID(), { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' })).id;
  const count = async (hookId: string, where = 'true') => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM deliveries WHERE webhook_id = $1 AND ${where}`, [hookId])).rows[0]!.n);

  beforeAll(async () => {
    ({ db, done } = await open());
    await migrate(db, MIGRATIONS);
    deliveries = new PgDeliveryStore(db);
    webhooks = new PgWebhookStore(db);
  });
  afterAll(async () => done());

  it('when the log is paged while deliveries are recorded, then each delivery there at the start is read once, in the order of the spec list', async () => {
    const hookId = await hook();
    for (let i = 0; i < 45; i++) await deliveries.recordDirect({ webhookId: hookId, event: 'ping', payload: { i } });
    const before = await deliveries.listForWebhook(hookId, 100);
    const seen: string[] = [];
    let page: PageRequest = { perPage: 10, start: { kind: 'newest' } };
    for (;;) {
      const got = await deliveries.pageForWebhook(hookId, page);
      seen.push(...got.rows.map((d) => d.id));
      if (!got.hasOlder) break;
      await deliveries.recordDirect({ webhookId: hookId, event: 'ping', payload: { late: true } });
      page = { perPage: 10, start: { kind: 'older', key: got.last! } };
    }
    expect(seen).toEqual(before.map((d) => d.id));
    const back = await deliveries.pageForWebhook(hookId, { perPage: 5, start: { kind: 'oldest' } });
    expect(back.rows.map((d) => d.id)).toEqual(before.slice(-5).map((d) => d.id));
    expect(back).toMatchObject({ hasNewer: true, hasOlder: false });
  });

  it('when pruning, then a webhook keeps its newest N and everything younger than the days, never a pending delivery, and the attempts go with their delivery', async () => {
    const busy = await hook();
    const quiet = await hook();
    // busy: 30 of the last 30 hours, 1,200 finished ones 10 days old and older, 3 pending ones 20 days old.
    await addDeliveries(db, busy, 30);
    await addDeliveries(db, busy, 1200, { hoursOld: 240 });
    await addDeliveries(db, busy, 3, { hoursOld: 480, status: 'pending' });
    // quiet: 40 finished ones, all a month old.
    await addDeliveries(db, quiet, 40, { hoursOld: 720, status: 'failed' });
    const pruned = await deliveries.prune(100, 7);
    // busy keeps its newest 100 (30 young + 70 old) and the 3 pending ones; quiet keeps all 40.
    expect(pruned).toBe(1200 - 70);
    expect(await count(busy)).toBe(103);
    expect(await count(busy, `status = 'pending'`)).toBe(3);
    expect(await count(busy, `created_at > now() - interval '31 hours'`)).toBe(30);
    expect(await count(quiet)).toBe(40);
    const orphans = await db.query<{ n: string }>('SELECT count(*) AS n FROM delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.id = a.delivery_id)');
    expect(Number(orphans.rows[0]!.n)).toBe(0);
    const newest = await deliveries.listForWebhook(busy, 100);
    expect(newest).toHaveLength(100);
    expect(await deliveries.prune(100, 7)).toBe(0);
  });

  it('when deliveries are recorded and retried while pruning runs, then none of them is pruned and every write succeeds', async () => {
    const hookId = await hook();
    await addDeliveries(db, hookId, 3000, { hoursOld: 240 });
    for (let i = 0; i < 5; i++) await deliveries.recordDirect({ webhookId: hookId, event: 'push', payload: { retry: i } });
    const claims = (await deliveries.claimDue(1000, 60_000)).filter((c) => c.webhook_id === hookId);
    expect(claims).toHaveLength(5);
    const firsts: ClaimedDelivery[] = Array.from({ length: 40 }, (_, i) => ({
      id: randomUUID(),
      webhook_id: hookId,
      event: 'push',
      payload: { fresh: i },
      attempts: 0,
      round_start: 0,
      url: 'http://127.0.0.1:9/hook',
      secret: null,
      type: 'githost',
      request_id: null,
      first: { event_id: `fresh-${i}`, created_at: new Date() },
    }));
    const result = { status: 'pending' as const, retryInMs: 60_000, responseStatus: 500, responseBody: 'x', error: 'HTTP 500', durationMs: 2 };
    const [prunedCount, ...recorded] = await Promise.all([
      deliveries.prune(100, 7),
      ...firsts.map((c) => deliveries.recordAttempts([{ claim: c, result }])),
      deliveries.recordAttempts(claims.map((c) => ({ claim: c, result }))),
    ]);
    expect(recorded.flat()).toEqual(recorded.flat().map(() => true));
    // Each batch counts the newest 100 as they are then: a pass that began before the fresh ones
    // came keeps more of the old; the next pass takes those. Then the newest 100 are the 45
    // recorded meanwhile and 55 of the old ones.
    expect(prunedCount + (await deliveries.prune(100, 7))).toBe(3000 - 55);
    expect(await count(hookId, `status = 'pending'`)).toBe(45);
    expect(await count(hookId)).toBe(100);
    const attempts = await db.query<{ n: string }>(`SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = $1 AND d.status = 'pending'`, [hookId]);
    expect(Number(attempts.rows[0]!.n)).toBe(45);
  });
});

describe('plans of the delivery log and pruning on Postgres', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let hookId: string;

  beforeAll(async () => {
    const t = await createTestDatabase('githost_webhooks_plans');
    drop = t.drop;
    db = await openDatabase({ url: t.url, schema: 'webhooks' });
    await migrate(db, MIGRATIONS);
    const webhooks = new PgWebhookStore(db);
    const hooks = await Promise.all(Array.from({ length: 20 }, () => webhooks.create(randomUUID(), { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' })));
    hookId = hooks[7]!.id;
    // 100,000 deliveries over 20 webhooks: a page must be a short range of deliveries_webhook_idx.
    await db.query(
      `INSERT INTO deliveries (id, webhook_id, event_id, event, payload, status, attempts, created_at)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + n % 20], 'e' || n, 'push', '{}', 'delivered', 1, now() - n * interval '1 minute'
         FROM generate_series(1, 100000) AS n`,
      [hooks.map((h) => h.id)],
    );
    await db.query('ANALYZE deliveries');
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  const plansOf = async (run: (s: PgDeliveryStore) => Promise<unknown>) => {
    const plans: string[] = [];
    const explaining = Object.create(db) as Database;
    explaining.query = async <T>(sql: string, params?: unknown[]) => {
      const r = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params);
      const plan = r.rows.map((row) => row['QUERY PLAN']).join('\n');
      plans.push(plan);
      // The webhook list of prune: this one webhook, so the walk ends after one round; its newest
      // kept delivery, so that its batch statement runs (once: no rows deleted).
      const answer = sql.includes('FROM webhooks') ? [{ id: hookId, seq: '1' }] : sql.includes('OFFSET') ? [{ at: new Date(Date.now() - 8 * 24 * 3600_000).toISOString(), seq: '50000' }] : [];
      return { rows: answer as T[], rowCount: 0 };
    };
    await run(new PgDeliveryStore(explaining));
    return plans;
  };
  const key = { at: String((Date.now() - 3 * 24 * 3600_000) * 1000), tie: '50000' };

  it.each([
    ['the first page', 1, (s: PgDeliveryStore) => s.pageForWebhook(hookId, { perPage: 100, start: { kind: 'newest' } })],
    ['a next page', 2, (s: PgDeliveryStore) => s.pageForWebhook(hookId, { perPage: 100, start: { kind: 'older', key } })],
    ['a previous page', 2, (s: PgDeliveryStore) => s.pageForWebhook(hookId, { perPage: 100, start: { kind: 'newer', key } })],
    ['the spec list', 1, (s: PgDeliveryStore) => s.listForWebhook(hookId, 100)],
    // a page from a key asks whether there is one the other way too; pruning reads the newest
    // kept delivery's key, then runs a batch
    ['pruning', 2, (s: PgDeliveryStore) => s.prune(100, 7)],
  ])('when %s is read from 100,000 deliveries, then no statement scans the deliveries table', async (_what, statements, run) => {
    const plans = await plansOf(run);
    const onDeliveries = plans.filter((p) => p.includes('deliveries'));
    expect(onDeliveries).toHaveLength(statements);
    for (const plan of onDeliveries) {
      expect(plan).not.toMatch(/Seq Scan on deliveries/);
      expect(plan).toMatch(/Index (Only )?Scan( Backward)? using deliveries_/);
    }
  });
});
