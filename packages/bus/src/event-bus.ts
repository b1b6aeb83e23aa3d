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

/*
 * What operators and other engineers need to know (details at the top of each file):
 * - createEventBus({ amqpUrl, exchange, logger }): RabbitMQ when amqpUrl (AMQP_URL) is set, else in process.
 * - Exchange `<exchange>` (GITHOST_EVENTS_EXCHANGE, default `githost.events`): durable topic, routing key = kind.
 * - subscribe(queue, kinds, ...): durable quorum queue `<queue>` bound to each kind, prefetch 32,
 *   `x-delivery-limit` = maxRedeliveries (10); dead letters go through `<exchange>.dlx` (direct,
 *   routing key = queue name) to quorum queue `<queue>.dead`. Non-JSON messages: straight to `.dead`.
 *   A failing handler's message is requeued after a backoff (200 ms doubling to 10 s).
 *   Changing maxRedeliveries of an existing queue is refused by the broker (PRECONDITION_FAILED):
 *   delete the queue or use a policy.
 * - publish(): persistent, publisher-confirmed; waits up to 5 s for a (re)connection, then `unavailable`.
 *   Mandatory: an event no queue is bound for yet (its consumers never subscribed on this broker) is
 *   returned by the broker and publish() fails as `unavailable`, so the producer keeps it and tries
 *   again (docs/decisions/unroutable-events.md).
 *   A confirm lost to an outage fails the publish though the broker took the message: the outbox or
 *   journal publishes it again, so consumers get that event twice, with the same id.
 * - Reconnect: backoff 100 ms doubling to 10 s with jitter; subscriptions resume by themselves. An
 *   attempt not set up (handshake, then the publisher channel) within connectTimeoutMs (10 s) is closed and retried.
 * - Producers: outbox (OUTBOX_MIGRATION_SQL, enqueueEvent in the state-change transaction,
 *   startOutboxRelay) or FileJournal + startJournalRelay; both at-least-once, consumers dedupe on id.
 */
