import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, startReceiver, type Receiver } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus, type EventEnvelope } from '@githost/bus';
import { createLogger, setLogSink } from '@githost/logging';
import { createHook, settledDeliveries, startHarness, type Harness } from './support/service.js';
import { AMQP_URL, closeConnectionsNamed, deleteTopology, uniqueName } from './support/rabbitmq.js';

/**
 * Never lose an event (CONTRACT §7), against the real broker: the service builds its RabbitMQ bus from
 * AMQP_URL as in production; a second bus in this process plays the producers.
 */
describe('webhooks over the real RabbitMQ', () => {
  const exchange = uniqueName('events');
  const queue = uniqueName('queue');
  const publisherName = uniqueName('publisher');
  // the bus names its connection `githost <exchange> <pid>` unless told otherwise
  const serviceConnection = `githost ${exchange} ${process.pid}`;
  let h: Harness;
  let publisher: EventBus;
  let receiver: Receiver;
  let hookId: string;

  const event = (n: number): EventEnvelope => ({
    id: randomUUID(),
    kind: 'push',
    occurred_at: new Date().toISOString(),
    repository: { id: h.repoId, owner: 'alice', name: 'project' },
    payload: { event: 'push', ref: `refs/heads/b${n}` },
  });
  const refsReceived = () => receiver.received.map((r) => (JSON.parse(r.text) as { ref: string }).ref);

  beforeAll(async () => {
    h = await startHarness({ bus: 'from-config', env: { AMQP_URL, GITHOST_EVENTS_EXCHANGE: exchange, GITHOST_WEBHOOKS_QUEUE: queue } });
    publisher = createEventBus({ amqpUrl: AMQP_URL, exchange, connectionName: publisherName });
    receiver = await startReceiver();
    hookId = await createHook(h, { url: receiver.url });
  });
  afterAll(async () => {
    await h.close();
    await publisher.close();
    await receiver.close();
    await deleteTopology(exchange, queue);
  });

  it('when events are published while the service is stopped, then all are delivered once it starts again', async () => {
    await h.stop();
    for (let i = 0; i < 15; i++) await publisher.publish(event(i));
    await h.restart();
    const list = await settledDeliveries(h, hookId, 15);
    expect(list.map((d) => d.status)).toEqual(list.map(() => 'delivered'));
    expect(refsReceived().sort()).toEqual(Array.from({ length: 15 }, (_, i) => `refs/heads/b${i}`).sort());
  });

  it('when the broker closes every connection mid-stream, then publisher and consumer reconnect and all events are delivered', async () => {
    receiver.received.length = 0;
    const published: Promise<void>[] = [];
    for (let i = 100; i < 130; i++) {
      if (i === 110) {
        expect(await closeConnectionsNamed(serviceConnection)).toBeGreaterThan(0);
        expect(await closeConnectionsNamed(publisherName)).toBeGreaterThan(0);
      }
      published.push(publisher.publish(event(i)));
    }
    await Promise.all(published);
    const list = await settledDeliveries(h, hookId, 45, undefined);
    expect(list.map((d) => d.status)).toEqual(list.map(() => 'delivered'));
    const refs = await eventually(async () => (new Set(refsReceived()).size === 30 ? refsReceived() : undefined));
    expect(new Set(refs)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `refs/heads/b${100 + i}`)));
  });
});

// docs/decisions/unroutable-events.md: on a broker that has never seen the service's queue, an
// event published before the queue exists would reach no queue; the queue is declared before the
// API answers, so no webhook can exist without it.
describe('webhooks starting on a broker that has never seen its queue', () => {
  const exchange = uniqueName('fresh-events');
  const queue = uniqueName('fresh-queue');
  afterAll(() => deleteTopology(exchange, queue));

  it('when the service starts, then its queue is declared and bound before its API listens', async () => {
    const lines: string[] = [];
    setLogSink({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    const inner = createEventBus({ amqpUrl: AMQP_URL, exchange, logger: createLogger('bus', 'silent') });
    let listeningBeforeSubscribed: boolean | undefined;
    const bus: EventBus = {
      publish: (e) => inner.publish(e),
      ready: () => inner.ready(),
      close: () => inner.close(),
      async subscribe(...args) {
        const sub = await inner.subscribe(...args);
        listeningBeforeSubscribed = lines.some((line) => line.includes('webhooks listening'));
        return sub;
      },
    };
    let h: Harness | undefined;
    try {
      h = await startHarness({ bus, env: { AMQP_URL, GITHOST_EVENTS_EXCHANGE: exchange, GITHOST_WEBHOOKS_QUEUE: queue } });
      expect(lines.some((line) => line.includes('webhooks listening'))).toBe(true);
      expect(listeningBeforeSubscribed).toBe(false);
      // What that order is for: the first push after the API answers is routed to the queue.
      const receiver = await startReceiver();
      try {
        const hook = await createHook(h, { url: receiver.url });
        await h.publish('push', { event: 'push', ref: 'refs/heads/first' });
        const [delivery] = await settledDeliveries(h, hook, 1);
        expect(delivery!.status).toBe('delivered');
      } finally {
        await receiver.close();
      }
    } finally {
      setLogSink(undefined);
      await h?.close();
      await inner.close();
    }
  });
});
