import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Database } from '@githost/db';
import { RabbitMqEventBus, enqueueEvent, startOutboxRelay, type EventEnvelope } from '../src/index.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';
import { AMQP_URL, outboxBehindProxy, uniqueName } from './rabbitmq.js';
import { removeBrokerTopology } from '../src/testing.js';
import type { TcpProxy } from './tcp-proxy.js';

// "Never lose an event" (CONTRACT §7): the broker goes away for longer than publish() waits.
describe('outbox and RabbitMQ through a broker outage', () => {
  const exchange = uniqueName('outage');
  const queue = uniqueName('outage-q');
  const lateQueue = uniqueName('outage-late');
  let db: Database;
  let proxy: TcpProxy;
  let viaProxy: string;
  let closeOutbox: () => Promise<void>;

  beforeAll(async () => {
    ({ db, proxy, url: viaProxy, close: closeOutbox } = await outboxBehindProxy());
  });
  afterAll(async () => {
    await closeOutbox();
    await removeBrokerTopology(AMQP_URL, exchange, [queue, lateQueue]);
  });

  it('when the broker is unreachable, then outbox events wait with attempts counted, and every one is delivered once it is back', async () => {
    const options = { url: viaProxy, exchange, publishTimeoutMs: 300, reconnect: { initialMs: 50, maxMs: 200 } };
    const publisher = new RabbitMqEventBus(options);
    const consumer = new RabbitMqEventBus(options);
    const received = new Map<string, EventEnvelope>();
    const lateReceived = new Set<string>();
    const relay = startOutboxRelay({ db, bus: publisher, intervalMs: 50 });
    const enqueue = async (n: number) => {
      const e = makeEvent(n);
      await db.transaction((tx) => enqueueEvent(tx, e));
      relay.kick();
      return e;
    };
    try {
      // subscribe() waits only publishTimeoutMs for a connection before it resolves and leaves the
      // queue to be declared on connect; an event published before any queue exists is returned and
      // waits in the outbox (unroutable.test.ts). Connected first, both queues below exist before
      // the first event is published.
      await waitFor(() => consumer.ready(), 'the consumer to connect');
      await consumer.subscribe(queue, ['push'], async (e) => void received.set(e.id, e));
      // A second consumer that has run before (its durable queue exists) and is stopped now.
      await (await consumer.subscribe(lateQueue, ['push'], async () => undefined)).close();
      const first = await enqueue(1);
      // Delivered is not yet published: the consumer can get the event before the publisher gets
      // its confirm. A confirm lost to the cut leaves the event in the outbox (published again
      // once the broker is back: at-least-once), ahead of the two below, which no pass would then
      // reach while the broker is away.
      await waitFor(async () => received.has(first.id) && (await relay.backlog()) === 0, 'the event before the outage, delivered and marked published');

      proxy.cut();
      await waitFor(async () => !(await publisher.ready()) && !(await consumer.ready()), 'both buses to notice the outage');
      const during = [await enqueue(2), await enqueue(3)];
      await waitFor(async () => {
        const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM outbox WHERE id = $1', [during[0]!.id]);
        return rows[0]!.attempts >= 2;
      }, 'failed publish attempts');
      const { rows } = await db.query<{ last_error: string }>('SELECT last_error FROM outbox WHERE id = $1', [during[0]!.id]);
      expect(rows[0]!.last_error).toBe('Event bus unavailable');
      expect(await relay.backlog()).toBe(2);
      // That consumer starts again during the outage: it starts consuming once the broker is back,
      // and gets what its queue kept while it was stopped as well as what came after.
      await consumer.subscribe(lateQueue, ['push'], async (e) => void lateReceived.add(e.id));

      proxy.restore();
      await waitFor(async () => (await relay.backlog()) === 0, 'the outbox to drain');
      await waitFor(() => received.size === 3 && lateReceived.size === 3, 'every event delivered').catch((err) => {
        throw new Error(`${String(err)}: received ${received.size}, late ${lateReceived.size}`);
      });
      expect([...received.values()].sort((a, b) => a.occurred_at.localeCompare(b.occurred_at))).toEqual([first, ...during]);
      expect([...lateReceived].sort()).toEqual([first, ...during].map((e) => e.id).sort());
    } finally {
      await relay.stop();
      await publisher.close();
      await consumer.close();
    }
  });
});
