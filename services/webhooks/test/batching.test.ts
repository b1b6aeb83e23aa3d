import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus, type EventEnvelope, type Subscription } from '@githost/bus';
import { createTestDatabase, migrate, openDatabase, type Database } from '@githost/db';
import { createLogger } from '@githost/logging';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgDeliveryStore } from '../src/db/delivery-store.js';
import type { ClaimedDelivery } from '../src/domain/types.js';
import { deliveryIdFor } from '../src/domain/delivery-id.js';
import { PgWebhookStore } from '../src/db/webhook-store.js';
import { subscribeToEvents } from '../src/consumer/event-consumer.js';
import { createHook, harnessWithReceiver, settledDeliveries } from './support/service.js';
import { AMQP_URL, closeConnectionsNamed, deleteTopology, uniqueName } from './support/rabbitmq.js';

const push = (n: number) => ({ event: 'push', ref: `refs/heads/b${n}` });
// Date.parse accepts it, Postgres refuses it: an event that passes every check and still cannot be written.
const IMPOSSIBLE_DATE = '2026-02-30T00:00:00Z';

describe('events looked up in batches (real Postgres)', () => {
  const started = harnessWithReceiver();

  it('when events arrive together, then they are looked up together: their deliveries share one taken-up time', async () => {
    const { harness: h, receiver } = started;
    const repoId = randomUUID();
    const hook = (await h.call('POST', '/api/repos/alice/project/webhooks', { url: receiver.url }, { repoId })).body as { id: string };
    await Promise.all(Array.from({ length: 20 }, (_, i) => h.publish('push', push(i), { repoId })));
    const list = await settledDeliveries(h, hook.id, 20, repoId);
    // created_at is when the lookup took the batch up: one value for all of them
    expect(new Set(list.map((d) => d.created_at)).size).toBe(1);
  });

  it('when one event of a batch cannot be looked up, then it alone fails and the rest of its batch is recorded and delivered', async () => {
    const { harness: h, receiver } = started;
    const hookId = await createHook(h, { url: receiver.url });
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => h.publish('push', push(100 + i), i === 4 ? { occurredAt: IMPOSSIBLE_DATE } : {})),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 10 }, (_, i) => (i === 4 ? 'rejected' : 'fulfilled')));
    const list = await settledDeliveries(h, hookId, 9);
    expect(list.map((d) => d.status)).toEqual(list.map(() => 'delivered'));
  });
});

describe('first attempts sent by the consumer', () => {
  // The fallback poll is longer than the test may wait: only the consumer's own sends deliver in time.
  const started = harnessWithReceiver({ env: { GITHOST_WEBHOOK_POLL_MS: '600000' } });

  it('when events come, then their first attempts are sent without waiting for the worker\'s poll', async () => {
    const { harness: h, receiver } = started;
    const hookId = await createHook(h, { url: receiver.url });
    await h.publish('push', push(1));
    await settledDeliveries(h, hookId);
    await Promise.all(Array.from({ length: 40 }, (_, i) => h.publish('push', push(10 + i))));
    const list = await settledDeliveries(h, hookId, 41);
    expect(list.map((d) => d.status)).toEqual(list.map(() => 'delivered'));
  });
});

describe('attempts recorded in batches (real Postgres)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let deliveries: PgDeliveryStore;
  let webhooks: PgWebhookStore;
  beforeAll(async () => {
    const testDb = await createTestDatabase('githost_webhooks');
    drop = testDb.drop;
    db = await openDatabase({ url: testDb.url, schema: 'webhooks' });
    await migrate(db, MIGRATIONS);
    deliveries = new PgDeliveryStore(db);
    webhooks = new PgWebhookStore(db);
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  const setUp = async (pending: number, failures: number) => {
    const repoId = randomUUID();
    const hook = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' });
    await db.query('UPDATE webhooks SET consecutive_failures = $2 WHERE id = $1', [hook.id, failures]);
    for (let i = 0; i < pending; i++) await deliveries.recordDirect({ webhookId: hook.id, event: 'push', payload: push(i) });
    const claims = (await deliveries.claimDue(100, 60_000)).filter((c) => c.webhook_id === hook.id);
    expect(claims).toHaveLength(pending);
    return { hookId: hook.id, claims };
  };
  const result = (status: 'delivered' | 'failed' | 'pending') => ({ status, responseStatus: status === 'delivered' ? 200 : 500, responseBody: 'x', error: status === 'delivered' ? null : 'HTTP 500', durationMs: 3, ...(status === 'pending' ? { retryInMs: 10 } : {}) });
  const health = async (id: string) => (await db.query<{ consecutive_failures: number; is_active: boolean }>('SELECT consecutive_failures, is_active FROM webhooks WHERE id = $1', [id])).rows[0];

  it('when attempts are recorded together, then each lands with its own state, and an attempt whose claim was taken over is refused alone', async () => {
    const { claims } = await setUp(3, 0);
    const [a, b, c] = claims as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
    const stale = { ...c, attempts: c.attempts + 5 };
    expect(await deliveries.recordAttempts([{ claim: a, result: result('delivered') }, { claim: b, result: result('pending') }, { claim: stale, result: result('failed') }])).toEqual([true, true, false]);
    const rows = (await db.query<{ id: string; status: string; attempts: number }>('SELECT id, status, attempts FROM deliveries WHERE id = ANY($1)', [[a.id, b.id, c.id]])).rows;
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.attempts]]))).toEqual({ [a.id]: ['delivered', 1], [b.id]: ['pending', 1], [c.id]: ['pending', 0] });
    expect((await deliveries.attempts(a.id)).map((x) => x.status)).toEqual(['succeeded']);
    expect((await deliveries.attempts(b.id)).map((x) => x.status)).toEqual(['failed']);
    expect(await deliveries.attempts(c.id)).toEqual([]);
  });

  const event = (repoId: string, i: number, id: string = randomUUID(), occurredAt = new Date(Date.now() + 1000)): EventEnvelope => ({
    id,
    kind: 'push',
    occurred_at: occurredAt.toISOString(),
    repository: { id: repoId, owner: 'a', name: 'b' },
    payload: push(i),
  });

  it('when first attempts are recorded, then each creates its delivery under the id derived from webhook and event, in its outcome\'s state, once', async () => {
    const repoId = randomUUID();
    const hook = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/hook', secret: 's', events: 'push' });
    const events = [event(repoId, 1), event(repoId, 2), event(repoId, 3)];
    const claims = (await deliveries.firstAttempts(events)).map((c) => {
      expect(c).toHaveLength(1);
      return c[0]!;
    });
    expect(claims.map((c) => c.id)).toEqual(events.map((e) => deliveryIdFor(hook.id, e.id)));
    expect(claims[0]).toMatchObject({ webhook_id: hook.id, url: 'http://127.0.0.1:9/hook', secret: 's', attempts: 0, round_start: 0, event: 'push', payload: push(1), first: { event_id: events[0]!.id } });
    const [a, b, c] = claims as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
    const later = { ...result('pending'), retryInMs: 60_000 };
    expect(await deliveries.recordAttempts([{ claim: a, result: result('delivered') }, { claim: b, result: later }, { claim: c, result: result('failed') }])).toEqual([true, true, true]);
    const rows = (await db.query<{ id: string; event_id: string; status: string; attempts: number; delivered: boolean; due_later: boolean }>(
      'SELECT id, event_id, status, attempts, delivered_at IS NOT NULL AS delivered, next_attempt_at > now() AS due_later FROM deliveries WHERE webhook_id = $1',
      [hook.id],
    )).rows;
    expect(Object.fromEntries(rows.map((r) => [r.event_id, [r.id, r.status, r.attempts, r.delivered, r.due_later]]))).toEqual({
      [events[0]!.id]: [a.id, 'delivered', 1, true, false],
      [events[1]!.id]: [b.id, 'pending', 1, false, true],
      [events[2]!.id]: [c.id, 'failed', 1, false, false],
    });
    expect((await deliveries.attempts(b.id)).map((x) => [x.number, x.status, x.response_status])).toEqual([[1, 'failed', 500]]);
    // recorded: the events make no first attempt again, and the same attempt recorded twice is refused
    expect(await deliveries.firstAttempts(events)).toEqual([[], [], []]);
    expect(await deliveries.recordAttempts([{ claim: a, result: result('failed') }])).toEqual([false]);
    expect(await deliveries.attempts(a.id)).toHaveLength(1);
    // the retry goes the leased way, as attempt 2 (brought forward: it is due in a minute)
    await db.query('UPDATE deliveries SET next_attempt_at = now() WHERE id = $1', [b.id]);
    const retry = (await deliveries.claimDue(100, 60_000)).find((x) => x.id === b.id)!;
    expect(retry).toMatchObject({ attempts: 1, url: 'http://127.0.0.1:9/hook' });
    expect(retry.first).toBeUndefined();
    expect(await deliveries.recordAttempts([{ claim: retry, result: result('delivered') }])).toEqual([true]);
    expect((await deliveries.attempts(b.id)).map((x) => [x.number, x.status])).toEqual([[1, 'failed'], [2, 'succeeded']]);
  });

  it('when deliveries are recorded, then their id is the one unique key: (webhook, event id) has no index of its own to write and vacuum', async () => {
    const { rows } = await db.query<{ name: string; cols: string }>(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS cols FROM pg_index i
        WHERE i.indrelid = 'deliveries'::regclass AND i.indisunique ORDER BY 1`,
    );
    expect(rows.map((r) => [r.name, r.cols.replace(/^.* USING btree /, '')])).toEqual([['deliveries_pkey', '(id)']]);
  });

  it('when an event comes twice in one batch, is not selected, or is older than the webhook, then it makes no first attempt for it', async () => {
    const repoId = randomUUID();
    const pushes = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/a', secret: null, events: 'push' });
    await webhooks.create(repoId, { url: 'http://127.0.0.1:9/b', secret: null, events: 'merge_request' });
    const twice = randomUUID();
    const claims = await deliveries.firstAttempts([event(repoId, 1, twice), event(repoId, 1, twice), event(repoId, 2, randomUUID(), new Date(Date.now() - 60_000))]);
    expect(claims.map((c) => c.map((x) => x.id))).toEqual([[deliveryIdFor(pushes.id, twice)], [], []]);
  });

  it('when a batch finishes deliveries of a webhook 19 failures in a row, then the streak follows them in order and the 20th failure deactivates it', async () => {
    const streak = await setUp(2, 19);
    const [ok, bad] = streak.claims as [ClaimedDelivery, ClaimedDelivery];
    await deliveries.recordAttempts([{ claim: ok, result: result('delivered') }, { claim: bad, result: result('failed') }]);
    expect(await health(streak.hookId)).toEqual({ consecutive_failures: 1, is_active: true });

    const dying = await setUp(1, 19);
    await deliveries.recordAttempts([{ claim: dying.claims[0]!, result: result('failed') }]);
    expect(await health(dying.hookId)).toEqual({ consecutive_failures: 20, is_active: false });
  });

  it('when a batch finishes deliveries of many webhooks, then each streak follows its own, in the same few statements whatever their number', async () => {
    // Counts the statements the batch's transaction runs: one per webhook was a round trip each
    // while the transaction held its locks.
    let statements = 0;
    const counted: Database = {
      kind: db.kind,
      schema: db.schema,
      query: (sql, params) => db.query(sql, params),
      transaction: (fn) => db.transaction((tx) => fn({ query: (sql, params) => (statements++, tx.query(sql, params)) })),
      ping: () => db.ping(),
      close: async () => undefined,
    };
    const store = new PgDeliveryStore(counted);
    const batch = async (hooks: Array<{ failures: number; outcome: 'delivered' | 'failed' }>) => {
      const set: Array<Awaited<ReturnType<typeof setUp>> & { outcome: 'delivered' | 'failed' }> = [];
      for (const h of hooks) set.push({ ...(await setUp(1, h.failures)), outcome: h.outcome });
      statements = 0;
      await store.recordAttempts(set.map((h) => ({ claim: h.claims[0]!, result: result(h.outcome) })));
      return { set, statements };
    };
    const healthy = await batch(Array.from({ length: 12 }, () => ({ failures: 0, outcome: 'delivered' as const })));
    const mixed = await batch(Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? { failures: 19, outcome: 'failed' as const } : i % 3 === 1 ? { failures: 5, outcome: 'delivered' as const } : { failures: 0, outcome: 'delivered' as const })));
    for (const [i, h] of mixed.set.entries()) {
      expect(await health(h.hookId)).toEqual(i % 3 === 0 ? { consecutive_failures: 20, is_active: false } : { consecutive_failures: 0, is_active: true });
    }
    for (const h of healthy.set) expect(await health(h.hookId)).toEqual({ consecutive_failures: 0, is_active: true });
    // The deliveries' and the attempts' inserts, then the streaks: one read when none moves, three when some do.
    expect([healthy.statements, mixed.statements]).toEqual([3, 5]);
  });
});

describe('a crash between recording and acking (real RabbitMQ and Postgres)', () => {
  const exchange = uniqueName('events');
  const queue = uniqueName('queue');
  const consumerName = uniqueName('consumer');
  let db: Database;
  let drop: () => Promise<void>;
  let consumerBus: EventBus;
  let publisher: EventBus;
  let subscription: Subscription | undefined;
  beforeAll(async () => {
    const testDb = await createTestDatabase('githost_webhooks');
    drop = testDb.drop;
    db = await openDatabase({ url: testDb.url, schema: 'webhooks' });
    await migrate(db, MIGRATIONS);
    consumerBus = createEventBus({ amqpUrl: AMQP_URL, exchange, connectionName: consumerName, retryDelay: { initialMs: 20, maxMs: 100 } });
    publisher = createEventBus({ amqpUrl: AMQP_URL, exchange, connectionName: uniqueName('publisher') });
  });
  afterAll(async () => {
    await subscription?.close();
    await consumerBus.close();
    await publisher.close();
    await deleteTopology(exchange, queue);
    await db.close();
    await drop();
  });

  it('when the broker connection dies after first attempts were recorded and before their acks, then the events come again and nothing is sent or recorded twice', async () => {
    const repoId = randomUUID();
    await new PgWebhookStore(db).create(repoId, { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' });
    const repository = new PgDeliveryStore(db);
    const lookedUp: string[] = [];
    const sent: string[] = [];
    let crashed = false;
    class CountingDeliveryStore extends PgDeliveryStore {
      override async firstAttempts(events: EventEnvelope[]) {
        lookedUp.push(...events.map((e) => e.id));
        return super.firstAttempts(events);
      }
    }
    /** Records a delivered attempt for real, then loses the connection before the handler can resolve (and ack). */
    const sender = {
      async deliverFirst(claim: ClaimedDelivery) {
        sent.push(claim.id);
        await repository.recordAttempts([{ claim, result: { status: 'delivered', responseStatus: 200, responseBody: 'ok', error: null, durationMs: 1 } }]);
        if (!crashed) {
          crashed = true;
          expect(await closeConnectionsNamed(consumerName)).toBeGreaterThan(0);
        }
      },
    };
    subscription = await subscribeToEvents(consumerBus, new CountingDeliveryStore(db), new PgWebhookStore(db), sender, createLogger('test'), { queue });
    const ids = Array.from({ length: 10 }, () => randomUUID());
    // a second ahead: the webhook's created_at has microseconds a same-millisecond event time would precede
    await Promise.all(ids.map((id, i) => publisher.publish({ id, kind: 'push', occurred_at: new Date(Date.now() + 1000).toISOString(), repository: { id: repoId, owner: 'a', name: 'b' }, payload: push(i) })));
    // every event sent, and the crashed batch's events came at least twice
    await eventually(async () => (ids.every((id) => lookedUp.includes(id)) && lookedUp.length > ids.length && sent.length >= ids.length ? true : undefined));
    // the redelivered events' handlers finish too (a second send would show up here)
    await new Promise((r) => setTimeout(r, 300));
    const rows = (await db.query<{ id: string; event_id: string; status: string }>('SELECT id, event_id, status FROM deliveries')).rows;
    expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
    expect(rows.map((r) => r.status)).toEqual(rows.map(() => 'delivered'));
    expect([...sent].sort()).toEqual(rows.map((r) => r.id).sort());
  });
});
