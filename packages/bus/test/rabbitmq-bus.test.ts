import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Channel, ChannelModel, GetMessage } from 'amqplib';
import { createEventBus, InProcessEventBus, RabbitMqEventBus, type EventBus, type EventEnvelope } from '../src/index.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';
import { AMQP_URL, closeConnectionsNamed, openAdmin, uniqueName } from './rabbitmq.js';

describe('RabbitMQ event bus', () => {
  const exchange = uniqueName('ex');
  const queues: string[] = [];
  const buses: EventBus[] = [];
  let admin: { model: ChannelModel; ch: Channel };

  const newBus = (connectionName?: string): RabbitMqEventBus => {
    const bus = new RabbitMqEventBus({ url: AMQP_URL, exchange, connectionName, retryDelay: { initialMs: 10, maxMs: 50 }, reconnect: { initialMs: 50, maxMs: 500 } });
    buses.push(bus);
    return bus;
  };
  const newQueue = (what: string): string => {
    const q = uniqueName(what);
    queues.push(q, `${q}.dead`);
    return q;
  };
  const drainQueue = async (queue: string): Promise<GetMessage[]> => {
    const got: GetMessage[] = [];
    for (let m = await admin.ch.get(queue, { noAck: true }); m; m = await admin.ch.get(queue, { noAck: true })) got.push(m);
    return got;
  };

  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    for (const q of queues) await admin.ch.deleteQueue(q);
    await admin.ch.deleteExchange(exchange);
    await admin.ch.deleteExchange(`${exchange}.dlx`);
    await admin.model.close();
  });

  it('when an event is published, then the subscriber gets the envelope intact and the message is persistent with its id and request id', async () => {
    const bus = newBus();
    const queue = newQueue('intact');
    const got: EventEnvelope[] = [];
    await bus.subscribe(queue, ['push'], async (e) => void got.push(e));
    const probe = newQueue('probe');
    await admin.ch.assertQueue(probe, { durable: false });
    await admin.ch.bindQueue(probe, exchange, 'push');

    const event = makeEvent(1, 'push', 'req-abc');
    await bus.publish(event);
    // No queue is bound for this kind: the broker returns it and the producer keeps it (unroutable.test.ts).
    await expect(bus.publish(makeEvent(2, 'merge_request'))).rejects.toMatchObject({ kind: 'unavailable' });
    await waitFor(() => got.length === 1, 'the push event');
    expect(got).toEqual([event]);

    const [raw] = await drainQueue(probe);
    expect(raw!.properties).toMatchObject({ messageId: event.id, contentType: 'application/json', deliveryMode: 2, type: 'push', headers: { 'x-request-id': 'req-abc' } });
    expect(JSON.parse(raw!.content.toString())).toEqual(event);
    expect(await bus.ready()).toBe(true);
  });

  it('when a message carries its request id only in the x-request-id header, then the handler sees it on the envelope', async () => {
    const bus = newBus();
    const queue = newQueue('header-id');
    const got: EventEnvelope[] = [];
    await bus.subscribe(queue, ['push'], async (e) => void got.push(e));
    const { request_id: _dropped, ...bare } = makeEvent(3, 'push', 'req-body');
    admin.ch.publish(exchange, 'push', Buffer.from(JSON.stringify(bare)), { headers: { 'x-request-id': 'req-header' } });
    await waitFor(() => got.length === 1, 'the header-only event');
    expect(got[0]).toEqual({ ...bare, request_id: 'req-header' });
  });

  it('when a handler throws, then the message is delivered again and acked once it succeeds', async () => {
    const bus = newBus();
    const queue = newQueue('retry');
    const attempts: string[] = [];
    const handled: EventEnvelope[] = [];
    await bus.subscribe(queue, ['push'], async (e) => {
      attempts.push(e.id);
      if (attempts.length < 3) throw new Error('database blip');
      handled.push(e);
    });
    const event = makeEvent(5);
    await bus.publish(event);
    await waitFor(() => handled.length === 1, 'the third delivery');
    expect(attempts).toEqual([event.id, event.id, event.id]);
    expect(handled).toEqual([event]);
    await waitFor(async () => (await admin.ch.checkQueue(queue)).messageCount === 0, 'queue empty');
  });

  it('when a message keeps failing or is not JSON, then it lands in the dead-letter queue and later messages still flow', async () => {
    const bus = newBus();
    const queue = newQueue('poison');
    const poison = makeEvent(66);
    let poisonDeliveries = 0;
    const handled: number[] = [];
    await bus.subscribe(
      queue,
      ['push'],
      async (e) => {
        if (e.id === poison.id) {
          poisonDeliveries++;
          throw new Error('cannot handle this one');
        }
        handled.push((e.payload as { n: number }).n);
      },
      { maxRedeliveries: 2, prefetch: 4 },
    );
    admin.ch.publish(exchange, 'push', Buffer.from('{not json'), { messageId: 'garbage-1', persistent: true });
    await bus.publish(poison);
    for (let n = 1; n <= 5; n++) await bus.publish(makeEvent(n));

    await waitFor(() => handled.length === 5, 'the good events');
    expect(handled.sort()).toEqual([1, 2, 3, 4, 5]);
    const dead: GetMessage[] = [];
    await waitFor(async () => {
      dead.push(...(await drainQueue(`${queue}.dead`)));
      return dead.length === 2;
    }, 'two dead letters');
    expect(dead.map((m) => m.properties.messageId).sort()).toEqual(['garbage-1', poison.id].sort());
    expect(JSON.parse(dead.find((m) => m.properties.messageId === poison.id)!.content.toString())).toEqual(poison);
    expect(poisonDeliveries).toBe(3); // the first delivery and maxRedeliveries (2) more
    expect((await admin.ch.checkQueue(queue)).messageCount).toBe(0);
  });

  it('when the broker closes the connections, then publisher and consumer reconnect and every event is received', async () => {
    const publisherName = uniqueName('publisher');
    const consumerName = uniqueName('consumer');
    const publisher = newBus(publisherName);
    const consumer = newBus(consumerName);
    const queue = newQueue('reconnect');
    const received = new Set<string>();
    await consumer.subscribe(queue, ['push'], async (e) => void received.add(e.id));
    const sent: string[] = [];
    const send = async (n: number) => {
      const e = makeEvent(n);
      await publisher.publish(e);
      sent.push(e.id);
    };
    for (let n = 1; n <= 5; n++) await send(n);
    await waitFor(() => received.size === 5, 'events before the cut');

    // Twenty publishes in flight while the broker cuts both connections, then five more while
    // they come back: every publish resolves (waiting for the reconnect) and every event arrives.
    const inFlight = Array.from({ length: 20 }, (_, i) => send(6 + i));
    expect(await closeConnectionsNamed(publisherName)).toBe(1);
    expect(await closeConnectionsNamed(consumerName)).toBe(1);
    for (let n = 26; n <= 30; n++) await send(n);
    await Promise.all(inFlight);
    await waitFor(() => received.size === 30, 'every event after the reconnect');
    expect([...received].sort()).toEqual([...sent].sort());
    expect(await publisher.ready()).toBe(true);
    expect(await consumer.ready()).toBe(true);
  });

  it('when handlers finish out of order and one never does, then the others are acked on the wire anyway: a lost connection brings back only the unfinished one', async () => {
    const consumerName = uniqueName('acks');
    const consumer = newBus(consumerName);
    const publisher = newBus();
    const queue = newQueue('acks');
    const handled = new Map<number, number>();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    await consumer.subscribe(queue, ['push'], async (e) => {
      const n = (e.payload as { n: number }).n;
      const times = (handled.get(n) ?? 0) + 1;
      handled.set(n, times);
      // The first delivery of event 1 stays in its handler: every ack after it is behind it.
      if (n === 1 && times === 1) await gate;
      else await new Promise((r) => setTimeout(r, (n * 7) % 13));
    });
    for (let n = 1; n <= 60; n++) await publisher.publish(makeEvent(n));
    await waitFor(() => handled.size === 60, 'all sixty handled once');
    await new Promise((r) => setTimeout(r, 200));

    expect(await closeConnectionsNamed(consumerName)).toBe(1);
    await waitFor(() => handled.get(1) === 2, 'the unfinished event delivered again');
    await new Promise((r) => setTimeout(r, 300));
    release();
    expect([...handled].filter(([, times]) => times !== 1)).toEqual([[1, 2]]);
    await waitFor(async () => (await admin.ch.checkQueue(queue)).messageCount === 0, 'queue empty');
  });

  it('when its queue is deleted under it, then the subscription declares it again and resumes', async () => {
    const bus = newBus();
    const queue = newQueue('deleted');
    const got: number[] = [];
    await bus.subscribe(queue, ['push'], async (e) => void got.push((e.payload as { n: number }).n));
    await admin.ch.deleteQueue(queue);
    // checkQueue on a missing queue closes its channel, so each look gets a channel of its own.
    const exists = async () => {
      const ch = await admin.model.createChannel();
      ch.on('error', () => undefined);
      const found = await ch.checkQueue(queue).then(
        (q) => q.consumerCount === 1,
        () => false,
      );
      await ch.close().catch(() => undefined);
      return found;
    };
    await waitFor(exists, 'the queue to be declared again with its consumer');
    await bus.publish(makeEvent(8));
    await waitFor(() => got.length === 1, 'the event after the queue came back');
    expect(got).toEqual([8]);
  });

  it('when a subscription is closed, then it stops consuming and its messages wait in the queue', async () => {
    const bus = newBus();
    const queue = newQueue('closing');
    const got: EventEnvelope[] = [];
    const sub = await bus.subscribe(queue, ['push'], async (e) => void got.push(e));
    await bus.publish(makeEvent(1));
    await waitFor(() => got.length === 1, 'the first event');
    await sub.close();
    await bus.publish(makeEvent(2));
    await waitFor(async () => (await admin.ch.checkQueue(queue)).messageCount === 1, 'the event to wait in the queue');
    expect(got.length).toBe(1);
  });
});

describe('RabbitMQ event bus without a broker', () => {
  it('when the broker is unreachable, then publish fails as unavailable after the timeout and ready is false', async () => {
    const bus = new RabbitMqEventBus({ url: 'amqp://guest:guest@127.0.0.1:1', exchange: uniqueName('none'), publishTimeoutMs: 300 });
    try {
      await expect(bus.publish(makeEvent(1))).rejects.toMatchObject({ kind: 'unavailable', message: 'Event bus unavailable' });
      expect(await bus.ready()).toBe(false);
    } finally {
      await bus.close();
    }
  });
});

describe('createEventBus', () => {
  it('when no AMQP URL is given, then the bus is in-process; when one is, then it is RabbitMQ', async () => {
    const exchange = uniqueName('factory');
    const local = createEventBus({});
    const remote = createEventBus({ amqpUrl: AMQP_URL, exchange });
    try {
      expect(local).toBeInstanceOf(InProcessEventBus);
      expect(remote).toBeInstanceOf(RabbitMqEventBus);
      await waitFor(() => remote.ready(), 'the broker connection');
    } finally {
      await local.close();
      await remote.close();
      const admin = await openAdmin();
      await admin.ch.deleteExchange(exchange);
      await admin.model.close();
    }
  });
});
