/** @githost/bus: the event bus contract (event-bus.ts) and its implementations. */
export type { EventBus, EventEnvelope, EventHandler, SubscribeOptions, Subscription } from './event-bus.js';
export { InProcessEventBus } from './in-process-bus.js';
export { OUTBOX_MIGRATION_SQL, enqueueEvent, enqueueEvents, startOutboxRelay, type OutboxRelayOptions } from './outbox.js';
export type { Relay } from './relay-loop.js';
export { createEventBus, type CreateEventBusOptions } from './create-event-bus.js';
export { RabbitMqEventBus, type RabbitMqBusOptions } from './rabbitmq-bus.js';
export { FileJournal, type StagedAppend } from './file-journal.js';
export { createFileDurably, DirectorySync } from './durable-file.js';
export { startJournalRelay, type JournalRelayOptions } from './journal-relay.js';
export { backoffDelay, type BackoffOptions } from './backoff.js';
