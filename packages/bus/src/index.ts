/**
 * The event bus: how services learn what happened elsewhere (CONTRACT §1). Two implementations
 * with one contract: RabbitMQ (amqplib) when AMQP_URL is set, in-process otherwise.
 *
 * Contract:
 * - publish() resolves only once the event is durable at the broker (publisher confirm), or, in
 *   process, once every subscriber's handler has finished; so a producer that marks its outbox
 *   row / journal entry published after publish() resolves never loses an event.
 * - subscribe() handlers get at-least-once delivery: a handler that throws (or a crash before
 *   it resolves) means the event comes again; after `maxRedeliveries` it is dead-lettered.
 */
export interface EventEnvelope<P = unknown> {
  /** Unique event id (uuid); consumers de-duplicate on it. */
  id: string;
  /** Event kind and routing key: `push`, `merge_request`. */
  kind: string;
  /** ISO 8601 time of the state change. */
  occurred_at: string;
  /** Repository the event is about. */
  repository: { id: string; owner: string; name: string };
  /** The webhook payload exactly as delivered (seed §6, CONTRACT §7). */
  payload: P;
  /** Request id of the request that caused it, for tracing. */
  request_id?: string;
}

export type EventHandler = (event: EventEnvelope) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Unacknowledged messages in flight at once (RabbitMQ prefetch). */
  prefetch?: number;
  /** Deliveries of one message before it goes to the dead-letter queue. */
  maxRedeliveries?: number;
}

export interface EventBus {
  publish(event: EventEnvelope): Promise<void>;
  subscribe(queue: string, kinds: string[], handler: EventHandler, opts?: SubscribeOptions): Promise<Subscription>;
  /** True when the broker connection is up (always true in process). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export { InProcessEventBus } from './in-process-bus.js';
export { OUTBOX_MIGRATION_SQL, enqueueEvent, startOutboxRelay, type OutboxRelayOptions } from './outbox.js';
export type { Relay } from './relay-loop.js';
export { createEventBus, type CreateEventBusOptions } from './create-event-bus.js';
export { RabbitMqEventBus, type RabbitMqBusOptions } from './rabbitmq-bus.js';
export { FileJournal } from './file-journal.js';
export { startJournalRelay, type JournalRelayOptions } from './journal-relay.js';
