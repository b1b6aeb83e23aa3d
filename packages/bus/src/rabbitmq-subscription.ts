import type { Channel, ChannelModel, ConsumeMessage, Message } from 'amqplib';
import type { Logger } from '@githost/logging';
import { AckCoalescer } from './ack-coalescer.js';
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js';
import type { EventEnvelope, EventHandler, Subscription } from './event-bus.js';
import { eventLogFields } from './log-fields.js';

/**
 * One consumer on one durable queue (its own channel, so its prefetch and any channel error stay
 * its own). Topology, declared idempotently on every (re)start:
 *
 *   <exchange> (topic) --kind--> <queue>  quorum queue, x-delivery-limit = maxRedeliveries,
 *                                          dead-letters to <exchange>.dlx with routing key <queue>
 *   <exchange>.dlx (direct) --<queue>--> <queue>.dead  (quorum; inspect or shovel back by hand)
 *
 * Handler resolves -> ack (coalesced with the acks that finish beside it, see AckCoalescer).
 * Handler throws -> nack with requeue after a short backoff (by the
 * broker's x-delivery-count), so a consumer whose database blips does not burn its redeliveries in
 * milliseconds; the broker dead-letters the message once it has been redelivered
 * `maxRedeliveries` times (at-least-once dead-lettering: not lost on the way to the DLQ). A message
 * that is not an envelope (not JSON, no id/kind) is dead-lettered at once (reject without requeue)
 * and logged: retrying cannot fix it. The dead-letter routing key is the queue name, so the DLX is
 * shared by all queues of an exchange without mixing their dead letters.
 */
export interface SubscriptionSpec {
  exchange: string;
  queue: string;
  kinds: string[];
  handler: EventHandler;
  prefetch: number;
  maxRedeliveries: number;
  retryDelay: BackoffOptions;
  logger: Logger;
}

export class RabbitMqSubscription implements Subscription {
  private channel: Channel | null = null;
  /** The current channel's acks; each channel has its own, as delivery tags are per channel. */
  private acks: AckCoalescer | null = null;
  private consumerTag: string | null = null;
  private starting: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;
  private wakeSleepers!: () => void;
  private readonly closedSignal = new Promise<void>((resolve) => (this.wakeSleepers = resolve));

  constructor(
    private readonly spec: SubscriptionSpec,
    /** Called when the channel is lost while the connection is still up (e.g. consumer cancelled). */
    private readonly onChannelLost: (sub: RabbitMqSubscription) => void,
    private readonly onClose: (sub: RabbitMqSubscription) => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  get queue(): string {
    return this.spec.queue;
  }

  /** Declares the topology and starts consuming on `model` (once: a running consumer is kept);
   *  throws when the broker refuses. */
  start(model: ChannelModel): Promise<void> {
    if (this.closed || this.channel) return Promise.resolve();
    this.starting ??= this.consume(model).finally(() => (this.starting = null));
    return this.starting;
  }

  private async consume(model: ChannelModel): Promise<void> {
    const { exchange, queue, kinds, prefetch, maxRedeliveries, logger } = this.spec;
    const dlx = `${exchange}.dlx`;
    const ch = await model.createChannel();
    const acks = new AckCoalescer((tag, multiple) => settle(() => ch.ack({ fields: { deliveryTag: tag } } as Message, multiple)));
    ch.on('error', (err: Error) => logger.warn({ err, queue }, 'event consumer channel error'));
    ch.on('close', () => {
      acks.stop();
      if (this.channel !== ch) return;
      this.channel = null;
      this.acks = null;
      this.consumerTag = null;
      if (!this.closed) this.onChannelLost(this);
    });
    try {
      await ch.assertExchange(exchange, 'topic', { durable: true });
      await ch.assertExchange(dlx, 'direct', { durable: true });
      await ch.assertQueue(`${queue}.dead`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
      await ch.bindQueue(`${queue}.dead`, dlx, queue);
      await ch.assertQueue(queue, {
        durable: true,
        arguments: {
          'x-queue-type': 'quorum',
          'x-delivery-limit': maxRedeliveries,
          'x-dead-letter-exchange': dlx,
          'x-dead-letter-routing-key': queue,
          'x-dead-letter-strategy': 'at-least-once',
          'x-overflow': 'reject-publish', // required by at-least-once dead-lettering
        },
      });
      for (const kind of kinds) await ch.bindQueue(queue, exchange, kind);
      await ch.prefetch(prefetch);
      this.channel = ch;
      this.acks = acks;
      const { consumerTag } = await ch.consume(queue, (msg) => this.onMessage(ch, acks, msg), { noAck: false });
      this.consumerTag = consumerTag;
      if (this.closed) await this.stopConsuming(ch);
    } catch (err) {
      if (this.channel === ch) this.channel = null;
      acks.stop();
      await ch.close().catch(() => undefined);
      throw err;
    }
  }

  /** The connection went away: the channel is gone with it; `start()` runs again on reconnect. */
  detach(): void {
    this.acks?.stop();
    this.acks = null;
    this.channel = null;
    this.consumerTag = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    this.wakeSleepers();
    const ch = this.channel;
    if (ch) await this.stopConsuming(ch);
    // Handlers in flight finish and ack before the channel closes; unacked messages return to the queue.
    await Promise.allSettled([...this.inFlight]);
    this.acks?.flushNow();
    this.channel = null;
    if (ch) await ch.close().catch(() => undefined);
  }

  private async stopConsuming(ch: Channel): Promise<void> {
    if (this.consumerTag) await ch.cancel(this.consumerTag).catch(() => undefined);
    this.consumerTag = null;
  }

  private onMessage(ch: Channel, acks: AckCoalescer, msg: ConsumeMessage | null): void {
    const { queue, logger } = this.spec;
    if (msg === null) {
      // The broker cancelled the consumer (queue deleted): a fresh channel re-declares and resumes.
      logger.warn({ queue }, 'event consumer cancelled by the broker; restarting');
      void ch.close().catch(() => undefined);
      return;
    }
    acks.received(msg.fields.deliveryTag);
    const event = parseEnvelope(msg.content);
    if (!event) {
      logger.error({ queue, message_id: msg.properties.messageId, size: msg.content.length }, 'malformed event message dead-lettered');
      settle(() => ch.nack(msg, false, false));
      acks.settledElsewhere(msg.fields.deliveryTag);
      return;
    }
    // A producer that sets only the x-request-id header (another language, an old relay) still
    // gets its request followed into the consumer's logs.
    const headerRequestId = msg.properties.headers?.['x-request-id'] as unknown;
    if (!event.request_id && typeof headerRequestId === 'string') event.request_id = headerRequestId;
    const work = this.deliver(ch, acks, msg, event);
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async deliver(ch: Channel, acks: AckCoalescer, msg: ConsumeMessage, event: EventEnvelope): Promise<void> {
    const { queue, logger, handler, retryDelay } = this.spec;
    try {
      await handler(event);
      acks.ack(msg.fields.deliveryTag);
    } catch (err) {
      const deliveries = Number(msg.properties.headers?.['x-delivery-count'] ?? 0) + 1;
      logger.warn({ err, queue, ...eventLogFields(event), deliveries }, 'event handler failed; message will be redelivered');
      if (!this.closed) await Promise.race([sleep(backoffDelay(deliveries - 1, retryDelay)), this.closedSignal]);
      settle(() => ch.nack(msg, false, true));
      acks.settledElsewhere(msg.fields.deliveryTag);
    }
  }
}

function parseEnvelope(content: Buffer): EventEnvelope | null {
  try {
    const value = JSON.parse(content.toString('utf8')) as Partial<EventEnvelope> | null;
    if (value && typeof value === 'object' && typeof value.id === 'string' && typeof value.kind === 'string') return value as EventEnvelope;
  } catch {
    // not JSON: malformed
  }
  return null;
}

/** ack/nack on a channel that closed meanwhile throws; the broker redelivers that message anyway. */
function settle(fn: () => void): void {
  try {
    fn();
  } catch {
    // channel closed: nothing to settle
  }
}
