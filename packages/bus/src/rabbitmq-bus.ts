import amqp, { type ChannelModel, type ConfirmChannel } from 'amqplib';
import { unavailable } from '@githost/errors';
import { createLogger, type Logger } from '@githost/logging';
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js';
import type { EventBus, EventEnvelope, EventHandler, SubscribeOptions, Subscription } from './event-bus.js';
import { RabbitMqSubscription } from './rabbitmq-subscription.js';

/**
 * The RabbitMQ event bus (amqplib, one connection per bus).
 *
 * Publishing: durable topic exchange `<exchange>` (default `githost.events`), routing key = kind,
 * persistent, mandatory JSON messages (`messageId` = event id, `type` = kind, header `x-request-id`)
 * on a confirm channel; publish() resolves on the broker's confirm, and fails as `unavailable` when
 * the broker returned the message because no queue is bound for its kind (none subscribed yet).
 * While the connection is down, publish() waits for the reconnect up to `publishTimeoutMs`
 * (default 5 s), retrying on a fresh channel if one dies before confirming, then rejects with
 * `unavailable` so the producer's outbox or journal keeps the event. A retry after a lost confirm
 * can publish twice: at-least-once. Every wait inside publish() is bounded by that deadline,
 * opening a new publisher channel on a connection that is up but silent included (heartbeats
 * would only notice it after 2-3 periods).
 *
 * Connection: reconnects on error/close with exponential backoff and jitter (100 ms doubling to
 * 10 s by default) until close(); every subscription re-declares its topology and resumes
 * consuming after a reconnect (see rabbitmq-subscription.ts for queues, DLQ and retries).
 * A connection attempt not set up within `connectTimeoutMs` (handshake, then the publisher channel)
 * is closed and retried with the backoff: heartbeats would notice a broker that went silent during
 * it only after 20-30 s, so one attempt into a black hole cannot stop reconnects.
 * The connection is named `githost <exchange> <pid>` so operators can tell replicas apart.
 */
export interface RabbitMqBusOptions {
  url: string;
  exchange?: string;
  logger?: Logger;
  /** How long publish() waits for a broker connection and confirm before failing as unavailable. */
  publishTimeoutMs?: number;
  reconnect?: BackoffOptions;
  /** How long setting up a connection (handshake, then the publisher channel) may take; the handshake
   *  also ends after this long without an answer from the broker. */
  connectTimeoutMs?: number;
  /** Delay before a failed message goes back to its queue (grows with its delivery count). */
  retryDelay?: BackoffOptions;
  connectionName?: string;
}

export class RabbitMqEventBus implements EventBus {
  private readonly url: string;
  private readonly exchange: string;
  private readonly logger: Logger;
  private readonly publishTimeoutMs: number;
  private readonly reconnectBackoff: BackoffOptions;
  private readonly connectTimeoutMs: number;
  private readonly retryDelay: BackoffOptions;
  private readonly connectionName: string;

  private model: ChannelModel | null = null;
  private publisher: ConfirmChannel | null = null;
  private publisherOpening: { model: ChannelModel; channel: Promise<ConfirmChannel> } | null = null;
  private connecting = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private attempt = 0;
  private closing = false;
  private waiters = new Set<() => void>();
  private readonly subscriptions = new Set<RabbitMqSubscription>();
  private readonly publishes = new Set<Promise<void>>();
  private readonly restartTimers = new Set<NodeJS.Timeout>();
  /** Ids of the messages each publisher channel had returned as unroutable, until their confirm. */
  private readonly returned = new WeakMap<ConfirmChannel, Set<string>>();

  constructor(opts: RabbitMqBusOptions) {
    const url = new URL(opts.url);
    // A half-open TCP connection is noticed within ~2 heartbeats instead of the server's 60 s.
    if (!url.searchParams.has('heartbeat')) url.searchParams.set('heartbeat', '10');
    this.url = url.toString();
    this.exchange = opts.exchange ?? 'githost.events';
    this.logger = opts.logger ?? createLogger('bus');
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5000;
    this.reconnectBackoff = opts.reconnect ?? { initialMs: 100, maxMs: 10_000 };
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
    this.retryDelay = opts.retryDelay ?? { initialMs: 200, maxMs: 10_000 };
    this.connectionName = opts.connectionName ?? `githost ${this.exchange} ${process.pid}`;
    this.scheduleConnect();
  }

  async publish(event: EventEnvelope): Promise<void> {
    const work = this.publishWithRetry(event);
    this.publishes.add(work);
    try {
      await work;
    } finally {
      this.publishes.delete(work);
    }
  }

  async subscribe(queue: string, kinds: string[], handler: EventHandler, opts: SubscribeOptions = {}): Promise<Subscription> {
    if (this.closing) throw unavailable('Event bus closed');
    if (!queue || kinds.length === 0) throw new Error('subscribe needs a queue name and at least one kind');
    const sub = new RabbitMqSubscription(
      {
        exchange: this.exchange,
        queue,
        kinds,
        handler,
        prefetch: opts.prefetch ?? 32,
        maxRedeliveries: opts.maxRedeliveries ?? 10,
        retryDelay: this.retryDelay,
        logger: this.logger,
      },
      (s) => this.restartLater(s, 0),
      (s) => this.subscriptions.delete(s),
    );
    this.subscriptions.add(sub);
    // Connected (or connected within the publish timeout): declare now so a refused topology
    // fails the caller. Still down: resolve; the subscription starts when the broker is back.
    await this.waitForConnection(Date.now() + this.publishTimeoutMs);
    const model = this.model;
    if (model) {
      try {
        await sub.start(model);
      } catch (err) {
        await sub.close();
        throw err;
      }
    } else {
      this.logger.warn({ queue }, 'event broker unreachable; subscription starts when it is back');
    }
    return sub;
  }

  async ready(): Promise<boolean> {
    return this.model !== null && !this.closing;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    for (const timer of this.restartTimers) clearTimeout(timer);
    this.wake(); // publishes waiting for a connection give up now; those awaiting a confirm finish
    await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    await Promise.allSettled([...this.publishes]);
    const model = this.model;
    this.model = null;
    this.publisher = null;
    this.wake();
    if (model) await model.close().catch(() => undefined);
  }

  private async publishWithRetry(event: EventEnvelope): Promise<void> {
    const deadline = Date.now() + this.publishTimeoutMs;
    const content = Buffer.from(JSON.stringify(event));
    const headers: Record<string, string> = {};
    if (event.request_id) headers['x-request-id'] = event.request_id;
    let lastError: unknown;
    for (;;) {
      if (this.closing) throw unavailable('Event bus closed');
      if (Date.now() >= deadline) throw unavailable('Event bus unavailable', lastError);
      const ch = await this.publisherChannel(deadline);
      if (!ch) continue;
      try {
        await confirmWithin(deadline, (done) =>
          ch.publish(
            this.exchange,
            event.kind,
            content,
            { persistent: true, mandatory: true, messageId: event.id, type: event.kind, contentType: 'application/json', timestamp: Math.floor(Date.now() / 1000), appId: 'githost', headers },
            done,
          ),
        );
      } catch (err) {
        // Channel closed (its close handler drops it) or message nacked before the confirm: try
        // again while time remains.
        lastError = err;
        await sleep(50);
        continue;
      }
      // The broker confirms an unroutable message too, after returning it (mandatory): no queue
      // took it, so the producer must keep it. Refused at once, not retried here: a queue appears
      // when its consumer subscribes, which the producer's next pass waits for
      // (docs/decisions/unroutable-events.md).
      if (this.returned.get(ch)?.delete(event.id)) throw unavailable(`No queue takes '${event.kind}' events yet`);
      return;
    }
  }

  /** The confirm channel, waiting for a connection until `deadline`; null means "look again". */
  private async publisherChannel(deadline: number): Promise<ConfirmChannel | null> {
    const model = this.model;
    if (!model) {
      await this.waitForConnection(deadline);
      return null;
    }
    if (this.publisher) return this.publisher;
    try {
      // A connection that is up but silent never answers the channel open: give up at the deadline
      // (the opening goes on; a later publish takes its channel once it is there).
      return await beforeDeadline(deadline, this.openPublisher(model));
    } catch {
      await sleep(50); // the connection is probably going away; its close event reconnects
      return null;
    }
  }

  /** Opens the confirm channel on `model`, or joins the opening already under way on it. */
  private openPublisher(model: ChannelModel): Promise<ConfirmChannel> {
    if (this.publisherOpening?.model === model) return this.publisherOpening.channel;
    const opening = (async () => {
      const ch = await model.createConfirmChannel();
      ch.on('error', (err: Error) => this.logger.warn({ err }, 'event publisher channel error'));
      ch.on('close', () => {
        if (this.publisher === ch) this.publisher = null;
      });
      const returned = new Set<string>();
      this.returned.set(ch, returned);
      // basic.return comes before the message's confirm on the same channel (RabbitMQ's publisher
      // confirms: "the basic.return is sent to the client before basic.ack").
      ch.on('return', (msg: { properties: { messageId?: unknown } }) => {
        if (typeof msg.properties.messageId === 'string') returned.add(msg.properties.messageId);
      });
      await ch.assertExchange(this.exchange, 'topic', { durable: true });
      if (this.model === model) this.publisher = ch;
      return ch;
    })().finally(() => {
      if (this.publisherOpening?.channel === opening) this.publisherOpening = null;
    });
    this.publisherOpening = { model, channel: opening };
    return opening;
  }

  private waitForConnection(deadline: number): Promise<void> {
    if (this.model || this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  private scheduleConnect(): void {
    if (this.closing || this.connecting || this.reconnectTimer) return;
    const delay = this.attempt === 0 ? 0 : backoffDelay(this.attempt - 1, this.reconnectBackoff);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.connecting = true;
      this.connect()
        .catch((err: unknown) => this.logger.warn({ err, attempt: this.attempt, exchange: this.exchange }, 'event broker connection failed; retrying'))
        .finally(() => {
          this.connecting = false;
          if (!this.model) this.scheduleConnect();
        });
    }, delay);
  }

  private async connect(): Promise<void> {
    // One deadline for the whole set-up. amqplib's `timeout` bounds the handshake only (it is
    // cleared once the connection is open); a broker that goes silent right after it would leave
    // the publisher channel's opening waiting for heartbeats (20-30 s), with no reconnect tried.
    const deadline = Date.now() + this.connectTimeoutMs;
    const model = await amqp.connect(this.url, { clientProperties: { connection_name: this.connectionName }, timeout: this.connectTimeoutMs });
    let alive = true;
    model.on('error', (err: Error) => this.logger.warn({ err }, 'event broker connection error'));
    model.on('close', () => {
      alive = false;
      this.onDisconnect(model);
    });
    model.on('blocked', (reason: string) => this.logger.warn({ reason }, 'event broker blocked publishing'));
    let publisher: ConfirmChannel;
    try {
      if (this.closing) throw new Error('bus closing');
      const opened = await beforeDeadline(deadline, this.openPublisher(model));
      if (!opened) throw new Error(`event broker connection not set up within ${this.connectTimeoutMs} ms`);
      publisher = opened;
      if (!alive) throw new Error('connection closed while it was being set up');
      if (this.closing) throw new Error('bus closing'); // close() ran meanwhile: do not keep it
    } catch (err) {
      // Not awaited: a broker that stopped answering never confirms the close (its heartbeats end
      // that socket), and the next attempt must not wait for it.
      void model.close().catch(() => undefined);
      if (this.closing) return;
      throw err;
    }
    this.model = model;
    this.publisher = publisher;
    this.attempt = 0;
    this.logger.info({ exchange: this.exchange, connection_name: this.connectionName }, 'event broker connected');
    this.wake();
    for (const sub of this.subscriptions) this.restartLater(sub, -1);
  }

  private onDisconnect(model: ChannelModel): void {
    if (this.model !== model) return;
    this.model = null;
    this.publisher = null;
    for (const sub of this.subscriptions) sub.detach();
    if (this.closing) return;
    this.logger.warn({ exchange: this.exchange }, 'event broker connection lost; reconnecting');
    this.scheduleConnect();
  }

  /** (Re)starts a subscription on the current connection; `attempt` -1 means at once. */
  private restartLater(sub: RabbitMqSubscription, attempt: number): void {
    if (this.closing) return;
    const delay = attempt < 0 ? 0 : backoffDelay(attempt, this.reconnectBackoff);
    const timer = setTimeout(() => {
      this.restartTimers.delete(timer);
      const model = this.model;
      if (!model || sub.isClosed || this.closing) return; // a reconnect restarts it
      sub.start(model).catch((err: unknown) => {
        this.logger.error({ err, queue: sub.queue }, 'event subscription could not start; retrying');
        this.restartLater(sub, Math.max(0, attempt) + 1);
      });
    }, delay);
    this.restartTimers.add(timer);
  }
}

/** `work`, or null once `deadline` passes first (`work` goes on; a late failure of it is ignored). */
function beforeDeadline<T>(deadline: number, work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()))));
  work.catch(() => undefined);
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Publishes and waits for the broker's confirm, failing when none comes before `deadline`. */
function confirmWithin(deadline: number, publish: (done: (err: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no publisher confirm in time')), Math.max(0, deadline - Date.now()));
    try {
      publish((err) => {
        clearTimeout(timer);
        if (err) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve();
      });
    } catch (err) {
      clearTimeout(timer);
      reject(err);
    }
  });
}
