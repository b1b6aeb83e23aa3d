import { unavailable } from '@githost/errors';
import { createLogger, type Logger } from '@githost/logging';
import { LoopBudget } from '@githost/runtime';
import type { EventBus, EventEnvelope, EventHandler, SubscribeOptions, Subscription } from './event-bus.js';
import { eventLogFields } from './log-fields.js';

/**
 * The in-process bus of the embedded mode (CONTRACT §2), with the RabbitMQ bus's delivery contract:
 * - a queue gets the event when one of its subscriptions lists the kind (no such queue: dropped,
 *   like an exchange with no bound queue); several subscriptions on one queue compete
 *   (round-robin), as consumers of one RabbitMQ queue do;
 * - publish() resolves when every queue's handler finished and rejects when one threw, so the
 *   producer's outbox row / journal entry stays and its relay publishes again;
 * - a queue that already handled the event is not given it again on that retry, and a queue whose
 *   handler has failed it more than `maxRedeliveries` times dead-letters it (logged, kept in
 *   `deadLetters(queue)`) so one poison event cannot block the producer's relay forever;
 * - handlers receive a JSON copy of the envelope, exactly what they would get from the broker;
 * - deliveries start one publish after another, in publish order, and the event loop is given
 *   back once they have held it for a LoopBudget: a relay issues a slice of 100 publishes at once,
 *   and every handler of all of them started in one turn of the loop (the copies, the handlers'
 *   synchronous work), while every other request of the embedded mode waited
 *   (docs/decisions/many-refs-push.md#yielding);
 * - a queue outlives its consumers, as a durable RabbitMQ queue does: an event one of them listed
 *   the kind of, published while none consumes, fails its publish (the producer keeps it and
 *   publishes again) instead of being dropped. A push that finished while githost stopped (the
 *   consumers stop before git-storage) is published again at the next start;
 * - made `held`, publishes wait until open(): the launcher opens the bus once every service has
 *   subscribed, so the events a producer's journal kept across a kill, published as it starts,
 *   are not dropped for want of queues that are not there yet (docs/embedded-mode.md#a-killed-process).
 */
export interface InProcessBusOptions {
  /** Publishes wait until open() (or close()). */
  held?: boolean;
}

interface Consumer {
  kinds: Set<string>;
  handler: EventHandler;
  maxRedeliveries: number;
  inFlight: Set<Promise<unknown>>;
}

const DEFAULT_MAX_REDELIVERIES = 10;
/** Dead letters kept per queue (oldest dropped first): the log line is the durable record. */
const DEAD_LETTERS_KEPT = 1000;

export class InProcessEventBus implements EventBus {
  /** Each queue ever subscribed, with every kind its consumers listed (kept when they leave). */
  private readonly queues = new Map<string, { consumers: Consumer[]; next: number; kinds: Set<string> }>();
  /** Resolved by open(): until then publishes wait (a `held` bus). */
  private opened: Promise<void> = Promise.resolve();
  private openNow: () => void = () => undefined;
  /** event id -> queues that handled it while another queue failed (forgotten once all succeed). */
  private readonly handledBy = new Map<string, Set<string>>();
  /** `${queue}\n${event id}` -> failed deliveries so far. */
  private readonly failures = new Map<string, number>();
  private readonly dead = new Map<string, EventEnvelope[]>();
  private closed = false;
  /** The turn the latest publish starts its deliveries on (publishes queue up behind it). */
  private turns: Promise<void> = Promise.resolve();
  private readonly budget = new LoopBudget();

  private readonly logger: Logger;

  constructor(logger?: Logger, opts: InProcessBusOptions = {}) {
    this.logger = logger ?? createLogger('bus');
    if (opts.held) this.opened = new Promise<void>((resolve) => (this.openNow = resolve));
  }

  /** Lets the publishes of a `held` bus through: every queue that will consume is subscribed. */
  open(): void {
    this.openNow();
  }

  async publish(event: EventEnvelope): Promise<void> {
    if (this.closed) throw unavailable('Event bus closed');
    await this.opened;
    await this.nextTurn();
    if (this.closed) throw unavailable('Event bus closed');
    const body = JSON.stringify(event);
    const done = this.handledBy.get(event.id) ?? new Set<string>();
    const errors: unknown[] = [];
    await Promise.all(
      [...this.queues].map(async ([queue, entry]) => {
        if (done.has(queue) || !entry.kinds.has(event.kind)) return;
        const consumer = this.pick(entry, event.kind);
        if (!consumer) {
          errors.push(unavailable(`Queue ${queue} has no consumer now`));
          return;
        }
        // Through a promise, so a handler that throws synchronously counts as a failed delivery too.
        const delivery = Promise.resolve().then(() => consumer.handler(JSON.parse(body) as EventEnvelope));
        consumer.inFlight.add(delivery);
        try {
          await delivery;
          done.add(queue);
          this.failures.delete(`${queue}\n${event.id}`);
        } catch (err) {
          if (this.deadLetter(queue, event, consumer, err)) done.add(queue);
          else errors.push(err);
        } finally {
          consumer.inFlight.delete(delivery);
        }
      }),
    );
    if (errors.length === 0) {
      this.handledBy.delete(event.id);
      return;
    }
    this.handledBy.set(event.id, done);
    const first = errors[0] instanceof Error ? errors[0].message : String(errors[0]);
    throw new Error(`event ${event.id} (${event.kind}) failed in ${errors.length} subscriber(s): ${first}`, { cause: errors[0] });
  }

  async subscribe(queue: string, kinds: string[], handler: EventHandler, opts: SubscribeOptions = {}): Promise<Subscription> {
    if (this.closed) throw unavailable('Event bus closed');
    const consumer: Consumer = { kinds: new Set(kinds), handler, maxRedeliveries: opts.maxRedeliveries ?? DEFAULT_MAX_REDELIVERIES, inFlight: new Set() };
    const entry = this.queues.get(queue) ?? { consumers: [], next: 0, kinds: new Set<string>() };
    entry.consumers.push(consumer);
    for (const kind of kinds) entry.kinds.add(kind);
    this.queues.set(queue, entry);
    return {
      close: async () => {
        entry.consumers = entry.consumers.filter((c) => c !== consumer);
        await Promise.allSettled([...consumer.inFlight]);
      },
    };
  }

  async ready(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.openNow(); // a publish still held fails as closed
    const inFlight = [...this.queues.values()].flatMap((e) => e.consumers.flatMap((c) => [...c.inFlight]));
    this.queues.clear();
    await Promise.allSettled(inFlight);
  }

  /** Events a queue's handler kept failing, in the order they were given up on. */
  deadLetters(queue: string): EventEnvelope[] {
    return [...(this.dead.get(queue) ?? [])];
  }

  /** Resolves when this publish may start its deliveries: after every earlier publish started
   *  its own, and after the loop was given back if they spent the budget. */
  private nextTurn(): Promise<void> {
    const turn = this.turns.then(() => this.budget.pauseIfSpent());
    this.turns = turn;
    return turn;
  }

  private pick(entry: { consumers: Consumer[]; next: number }, kind: string): Consumer | undefined {
    const n = entry.consumers.length;
    for (let i = 0; i < n; i++) {
      const consumer = entry.consumers[(entry.next + i) % n]!;
      if (consumer.kinds.has(kind)) {
        entry.next = (entry.next + i + 1) % n;
        return consumer;
      }
    }
    return undefined;
  }

  private deadLetter(queue: string, event: EventEnvelope, consumer: Consumer, err: unknown): boolean {
    const key = `${queue}\n${event.id}`;
    const failed = (this.failures.get(key) ?? 0) + 1;
    if (failed <= consumer.maxRedeliveries) {
      this.failures.set(key, failed);
      this.logger.warn({ err, queue, ...eventLogFields(event), attempt: failed }, 'event handler failed; will be redelivered');
      return false;
    }
    this.failures.delete(key);
    this.dead.set(queue, [...(this.dead.get(queue) ?? []), event].slice(-DEAD_LETTERS_KEPT));
    this.logger.error({ err, queue, ...eventLogFields(event), deliveries: failed }, 'event dead-lettered after repeated handler failures');
    return true;
  }
}
