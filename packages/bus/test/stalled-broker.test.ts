import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, setLogSink } from '@githost/logging';
import { RabbitMqEventBus } from '../src/index.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';
import { brokerBehindProxy, openAdmin, uniqueName } from './rabbitmq.js';
import type { TcpProxy } from './tcp-proxy.js';

/** A logger that calls `on(msg)` synchronously for each line the bus writes. */
function loggerCalling(on: (msg: string) => void) {
  setLogSink({ level: 'warn', destination: { write: (line: string) => on((JSON.parse(line) as { msg: string }).msg) } });
  try {
    return createLogger('bus-test');
  } finally {
    setLogSink(undefined);
  }
}

// The broker stops answering without going away: publish() must still fail as unavailable within
// publishTimeoutMs (the outbox counts an attempt and goes on), and the bus must come back with it.
describe('RabbitMQ event bus and a broker that stops answering', () => {
  const exchanges: string[] = [];
  const proxies: TcpProxy[] = [];
  const buses: RabbitMqEventBus[] = [];

  const viaNewProxy = async (): Promise<{ proxy: TcpProxy; url: string }> => {
    const behind = await brokerBehindProxy();
    proxies.push(behind.proxy);
    return behind;
  };
  const newExchange = (what: string): string => {
    const name = uniqueName(what);
    exchanges.push(name);
    return name;
  };

  let admin: Awaited<ReturnType<typeof openAdmin>>;
  /** A queue of the admin connection's (gone with it) bound for every kind: publishes are routable (unroutable.test.ts). */
  const takeEvents = async (exchange: string): Promise<void> => {
    await admin.ch.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await admin.ch.assertQueue('', { exclusive: true });
    await admin.ch.bindQueue(queue, exchange, '#');
  };
  beforeAll(async () => {
    admin = await openAdmin();
  });
  afterAll(async () => {
    for (const proxy of proxies) proxy.restore();
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(proxies.map((p) => p.close()));
    for (const name of exchanges) await admin.ch.deleteExchange(name);
    await admin.model.close();
  });

  it('when the broker stops answering while the publisher channel is being opened again, then publish fails as unavailable within its timeout', async () => {
    const { proxy, url } = await viaNewProxy();
    const exchange = newExchange('stall-open');
    // The moment the broker closes the publisher channel, it stops answering: the publish that
    // follows has to open a new channel on a connection that is up but silent.
    const logger = loggerCalling((msg) => {
      if (msg === 'event publisher channel error') proxy.hold();
    });
    const bus = new RabbitMqEventBus({ url, exchange, logger, publishTimeoutMs: 500 });
    buses.push(bus);
    await takeEvents(exchange);
    await bus.publish(makeEvent(1));
    await admin.ch.deleteExchange(exchange); // the next publish makes the broker close the channel (404)

    const started = Date.now();
    const outcome = await Promise.race([
      bus.publish(makeEvent(2)).then(
        () => 'published',
        (err: Error) => err.message,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 5000)),
    ]);
    expect(outcome).toBe('Event bus unavailable');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await bus.ready()).toBe(true); // the connection is up, only silent: no reconnect is due

    proxy.restore();
    await takeEvents(exchange); // deleting the exchange took its bindings
    await waitFor(
      () =>
        bus.publish(makeEvent(3)).then(
          () => true,
          () => false,
        ),
      'a publish once the broker answers again',
    );
  });

  it('when a reconnect reaches a broker that never answers the handshake, then the bus gives that attempt up and connects once the broker is back', async () => {
    const { proxy, url } = await viaNewProxy();
    const exchange = newExchange('stall-connect');
    await takeEvents(exchange);
    const bus = new RabbitMqEventBus({ url, exchange, publishTimeoutMs: 300, reconnect: { initialMs: 50, maxMs: 200 }, connectTimeoutMs: 1000 });
    buses.push(bus);
    await waitFor(() => bus.ready(), 'the first connection');

    proxy.cut();
    await waitFor(async () => !(await bus.ready()), 'the bus to notice the outage');
    proxy.hold(); // the next attempt is accepted and never answered
    await waitFor(() => proxy.heldAccepts >= 1, 'a reconnect attempt into the silent broker');
    await expect(bus.publish(makeEvent(1))).rejects.toThrow('Event bus unavailable');

    proxy.restore();
    await waitFor(() => bus.ready(), 'the bus to connect again', 10_000);
    await bus.publish(makeEvent(2));
  });

  it('when a reconnect gets through its handshake and the broker then stops answering, then the bus gives that connection up within connectTimeoutMs and connects again', async () => {
    const { proxy, url } = await viaNewProxy();
    const exchange = newExchange('stall-setup');
    await takeEvents(exchange);
    const bus = new RabbitMqEventBus({ url, exchange, publishTimeoutMs: 300, reconnect: { initialMs: 50, maxMs: 200 }, connectTimeoutMs: 1000 });
    buses.push(bus);
    await waitFor(() => bus.ready(), 'the first connection');

    proxy.cut();
    await waitFor(async () => !(await bus.ready()), 'the bus to notice the outage');
    proxy.stallAfterHandshake(); // the next connection opens, then its publisher channel is never answered
    proxy.restore();
    await waitFor(() => proxy.stalledConnections === 1, 'a reconnect that opened and then went silent');
    const stalledAt = Date.now();

    // Heartbeats (10 s) would end the silent connection only after 20-30 s; the set-up deadline
    // (1 s) plus a backoff step (at most 200 ms) is what it may take.
    await waitFor(() => bus.ready(), 'the bus to connect again past the silent connection', 5000);
    await bus.publish(makeEvent(1));
    expect(Date.now() - stalledAt).toBeLessThan(5000);
  });
});
