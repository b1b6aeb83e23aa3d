import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus, type EventEnvelope, type Subscription } from '@githost/bus';
import { createTestDatabase, migrate, openDatabase, type Database } from '@githost/db';
import { createLogger } from '@githost/logging';
import { MIGRATIONS } from '../src/db/migrations.js';
import { DeliveryRepository } from '../src/db/delivery-repository.js';
import type { ClaimedDelivery } from '../src/domain/types.js';
import { WebhookRepository } from '../src/db/webhook-repository.js';
import { subscribeToEvents } from '../src/consumer/event-consumer.js';
import { createHook, harnessWithReceiver, settledDeliveries } from './support/service.js';
import { AMQP_URL, closeConnectionsNamed, deleteTopology, uniqueName } from './support/rabbitmq.js';

const push = (n: number) => ({ event: 'push', ref: `refs/heads/b${n}` });
// Date.parse accepts it, Postgres refuses it: an event that passes every check and still cannot be written.
const IMPOSSIBLE_DATE = '2026-02-30T00:00:00Z';

describe('events recorded in batches (real Postgres)', () => {
  const started = harnessWithReceiver();

  it('when events arrive together, then their deliveries are recorded in one transaction', async () => {
    const { harness: h, receiver } = started;
    const repoId = randomUUID();
    const hook = (await h.call('POST', '/api/repos/alice/project/webhooks', { url: receiver.url }, { repoId })).body as { id: string };
    await Promise.all(Array.from({ length: 20 }, (_, i) => h.publish('push', push(i), { repoId })));
    const list = await settledDeliveries(h, hook.id, 20, repoId);
    // now() is the transaction's start: one value for all of them
    expect(new Set(list.map((d) => d.created_at)).size).toBe(1);
  });

  it('when one event of a batch cannot be recorded, then it alone fails and the rest of its batch is recorded and delivered', async () => {
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

describe('the worker woken by the consumer', () => {
  // The fallback poll is longer than the test may wait: only the wake-up can deliver in time.
  const started = harnessWithReceiver({ env: { GITHOST_WEBHOOK_POLL_MS: '600000' } });

  it('when deliveries are recorded, then the worker sends them without waiting for its poll', async () => {
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
  let deliveries: DeliveryRepository;
  let webhooks: WebhookRepository;
  beforeAll(async () => {
    const testDb = await createTestDatabase('githost_webhooks');
    drop = testDb.drop;
    db = await openDatabase({ url: testDb.url, schema: 'webhooks' });
    await migrate(db, MIGRATIONS);
    deliveries = new DeliveryRepository(db);
    webhooks = new WebhookRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  const setUp = async (pending: number, failures: number) => {
    const repoId = randomUUID();
    const hook = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' });
    await db.query('UPDATE webhooks SET consecutive_failures = $2 WHERE id = $1', [hook.id, failures]);
    // a second ahead: the webhook's created_at has microseconds a same-millisecond event time would precede
    for (let i = 0; i < pending; i++) {
      await deliveries.recordEvents([{ id: randomUUID(), kind: 'push', occurred_at: new Date(Date.now() + 1000).toISOString(), repository: { id: repoId, owner: 'a', name: 'b' }, payload: push(i) }]);
    }
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

  it('when a batch finishes deliveries of a webhook 19 failures in a row, then the streak follows them in order and the 20th failure deactivates it', async () => {
    const streak = await setUp(2, 19);
    const [ok, bad] = streak.claims as [ClaimedDelivery, ClaimedDelivery];
    await deliveries.recordAttempts([{ claim: ok, result: result('delivered') }, { claim: bad, result: result('failed') }]);
    expect(await health(streak.hookId)).toEqual({ consecutive_failures: 1, is_active: true });

    const dying = await setUp(1, 19);
    await deliveries.recordAttempts([{ claim: dying.claims[0]!, result: result('failed') }]);
    expect(await health(dying.hookId)).toEqual({ consecutive_failures: 20, is_active: false });
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

  it('when the broker connection dies after a batch committed and before its acks, then the events come again and record nothing twice', async () => {
    const repoId = randomUUID();
    await new WebhookRepository(db).create(repoId, { url: 'http://127.0.0.1:9/hook', secret: null, events: 'push' });
    const seen: string[] = [];
    let crashed = false;
    /** Commits for real, then loses the connection before the handler can resolve (and ack). */
    class CrashingRepository extends DeliveryRepository {
      override async recordEvents(events: EventEnvelope[]): Promise<number[]> {
        const recorded = await super.recordEvents(events);
        seen.push(...events.map((e) => e.id));
        if (!crashed) {
          crashed = true;
          expect(await closeConnectionsNamed(consumerName)).toBeGreaterThan(0);
        }
        return recorded;
      }
    }
    subscription = await subscribeToEvents(consumerBus, new CrashingRepository(db), new WebhookRepository(db), createLogger('test'), { queue });
    const ids = Array.from({ length: 10 }, () => randomUUID());
    await Promise.all(ids.map((id, i) => publisher.publish({ id, kind: 'push', occurred_at: new Date(Date.now() + 1000).toISOString(), repository: { id: repoId, owner: 'a', name: 'b' }, payload: push(i) })));
    // every event recorded, and the crashed batch's events came at least twice
    await eventually(async () => (ids.every((id) => seen.includes(id)) && seen.length > ids.length ? true : undefined));
    const rows = (await db.query<{ event_id: string }>('SELECT event_id FROM deliveries')).rows.map((r) => r.event_id);
    expect(rows.sort()).toEqual([...ids].sort());
  });
});
