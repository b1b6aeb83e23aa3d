import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { migrate, openDatabase, type Database } from '@githost/db';
import { OUTBOX_MIGRATION_SQL, RabbitMqEventBus, enqueueEvent, startOutboxRelay, type EventEnvelope } from '../src/index.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';
import { AMQP_URL, uniqueName } from './rabbitmq.js';
import { removeBrokerTopology } from '../src/testing.js';

// A broker that has never seen a consumer's queue (a first start, a broker that lost its
// definitions) would drop events published before the consumer subscribes
// (docs/decisions/unroutable-events.md): they must wait at their producer instead.
describe('RabbitMQ event bus when no queue takes an event yet', () => {
  const exchange = uniqueName('unroutable');
  const queue = uniqueName('unroutable-q');
  let db: Database;

  beforeAll(async () => {
    db = await openDatabase({ schema: 'svc' });
    await migrate(db, [{ version: 1, name: 'outbox', sql: OUTBOX_MIGRATION_SQL }]);
  });
  afterAll(async () => {
    await db.close();
    await removeBrokerTopology(AMQP_URL, exchange, [queue]);
  });

  it('when an event is published before any queue is bound for its kind, then publish fails, the outbox keeps it, and it is delivered once a consumer subscribes', async () => {
    const publisher = new RabbitMqEventBus({ url: AMQP_URL, exchange });
    const consumer = new RabbitMqEventBus({ url: AMQP_URL, exchange });
    const relay = startOutboxRelay({ db, bus: publisher, intervalMs: 50 });
    const received: EventEnvelope[] = [];
    try {
      await waitFor(() => publisher.ready(), 'the publisher to connect');
      const early = makeEvent(1);
      await expect(publisher.publish(early)).rejects.toMatchObject({ kind: 'unavailable', message: "No queue takes 'push' events yet" });

      await db.transaction((tx) => enqueueEvent(tx, early));
      relay.kick();
      await waitFor(async () => {
        const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM outbox WHERE id = $1', [early.id]);
        return rows[0]!.attempts >= 2;
      }, 'the relay to try it twice');
      const { rows } = await db.query<{ last_error: string }>('SELECT last_error FROM outbox WHERE id = $1', [early.id]);
      expect(rows[0]!.last_error).toBe("No queue takes 'push' events yet");
      expect(await relay.backlog()).toBe(1);

      await consumer.subscribe(queue, ['push'], async (e) => void received.push(e));
      await waitFor(async () => received.length === 1 && (await relay.backlog()) === 0, 'the kept event delivered and marked published');
      expect(received).toEqual([early]);
      // A kind the queue is bound for is routable now; another kind still is not.
      await publisher.publish(makeEvent(2));
      await expect(publisher.publish(makeEvent(3, 'merge_request'))).rejects.toMatchObject({ kind: 'unavailable' });
      await waitFor(() => received.length === 2, 'the second push');
      expect(received.map((e) => (e.payload as { n: number }).n)).toEqual([1, 2]);
    } finally {
      await relay.stop();
      await publisher.close();
      await consumer.close();
    }
  });
});
