import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Database } from '@githost/db';
import { RabbitMqEventBus, enqueueEvent, startOutboxRelay, type EventEnvelope } from '../src/index.js';
import { removeBrokerTopology } from '../src/testing.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';
import { AMQP_URL, outboxBehindProxy, uniqueName } from './rabbitmq.js';
import type { TcpProxy } from './tcp-proxy.js';

// The outbox keeps an event until the broker confirmed it (outbox.ts): a publish that reached the
// broker but whose confirm was lost to an outage is published again once the broker is back.
describe('outbox and RabbitMQ when a publisher confirm is lost to an outage', () => {
  const exchange = uniqueName('lost-confirm');
  const queue = uniqueName('lost-confirm-q');
  let db: Database;
  let proxy: TcpProxy;
  let viaProxy: string;
  let closeOutbox: () => Promise<void>;

  beforeAll(async () => {
    ({ db, proxy, url: viaProxy, close: closeOutbox } = await outboxBehindProxy());
  });
  afterAll(async () => {
    await closeOutbox();
    await removeBrokerTopology(AMQP_URL, exchange, [queue]);
  });

  it('when the connection is cut after the broker took an event but before its confirm came back, then the event stays in the outbox, is published again once the broker is back, and the later events follow it in order', async () => {
    // publishTimeoutMs leaves the publish waiting for its confirm well past the moment of the cut.
    const publisher = new RabbitMqEventBus({ url: viaProxy, exchange, publishTimeoutMs: 1000, reconnect: { initialMs: 50, maxMs: 200 } });
    // The consumer reaches the broker directly: it sees what the broker took, whatever the proxy does.
    const consumer = new RabbitMqEventBus({ url: AMQP_URL, exchange });
    const received: EventEnvelope[] = [];
    const relay = startOutboxRelay({ db, bus: publisher, intervalMs: 50 });
    const enqueue = async (n: number) => {
      const e = makeEvent(n);
      await db.transaction((tx) => enqueueEvent(tx, e));
      relay.kick();
      return e;
    };
    const attemptsOf = async (id: string) =>
      (await db.query<{ attempts: number; last_error: string | null }>('SELECT attempts, last_error FROM outbox WHERE id = $1 AND published_at IS NULL', [id])).rows[0];
    try {
      await waitFor(() => consumer.ready(), 'the consumer to connect');
      await consumer.subscribe(queue, ['push'], async (e) => void received.push(e));
      await waitFor(() => publisher.ready(), 'the publisher to connect');

      proxy.dropFromBroker(); // the publish reaches the broker; its confirm never comes back
      const lost = await enqueue(1);
      await waitFor(() => received.length === 1, 'the broker to take the event');
      proxy.cut();
      await waitFor(async () => !(await publisher.ready()), 'the publisher to notice the outage');
      // Not confirmed, so not published: the row stays, with the failed attempt counted.
      await waitFor(async () => ((await attemptsOf(lost.id))?.attempts ?? 0) >= 1, 'the unconfirmed publish to fail');
      expect((await attemptsOf(lost.id))?.last_error).toBe('Event bus unavailable');
      const after = [await enqueue(2), await enqueue(3)];
      expect(await relay.backlog()).toBe(3);

      proxy.restore();
      await waitFor(async () => (await relay.backlog()) === 0, 'the outbox to drain');
      const later = await enqueue(4);
      await waitFor(() => received.some((e) => e.id === later.id), 'an event written after the recovery');
      await waitFor(async () => (await relay.backlog()) === 0, 'the outbox to be empty');

      // At-least-once: the copy the broker took before the cut, then the one published again,
      // both the same envelope (same id, on which consumers de-duplicate), ahead of what followed.
      expect(received.map((e) => (e.payload as { n: number }).n)).toEqual([1, 1, 2, 3, 4]);
      expect(received.slice(0, 2)).toEqual([lost, lost]);
      expect(received.slice(2)).toEqual([...after, later]);
    } finally {
      await relay.stop();
      await publisher.close();
      await consumer.close();
    }
  });
});
