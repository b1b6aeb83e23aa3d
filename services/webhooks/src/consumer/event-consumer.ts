import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import { GroupCommit } from '@githost/db';
import type { Logger } from '@githost/logging';
import { validation } from '@githost/errors';
import { EVENT_KINDS } from '../domain/events.js';
import type { DeliveryStore, WebhookStore } from '../domain/ports.js';
import { forgetRepository } from '../domain/repository-purge.js';
import { envelopeProblem } from '../domain/event-envelope.js';

export interface ConsumerOptions {
  queue: string;
  /** Messages in flight at once; also bounds how many share one transaction. */
  prefetch?: number;
  /** Most events recorded in one transaction. */
  maxBatch?: number;
  /** Called after deliveries were recorded, so the worker sends them now. */
  onRecorded?: () => void;
  metrics?: ConsumerMetrics;
}

export interface ConsumerMetrics {
  /** An event's deliveries are durable, `lagSeconds` after the change happened (queue lag). */
  eventRecorded(lagSeconds: number): void;
}

/** git-storage's event for a removed repository: not delivered, it purges the repository's webhooks. */
export const REPOSITORY_DELETED = 'repository_deleted';

export const DEFAULT_PREFETCH = 256;
export const DEFAULT_MAX_BATCH = 128;

/**
 * Turns events into pending deliveries. The handler resolves only after the deliveries are
 * committed, and the bus acks only then: a crash in between brings the event again, and the
 * UNIQUE (webhook_id, event_id) key makes the second recording a no-op. Messages in flight
 * together are recorded in one transaction (group commit); one that cannot be recorded fails
 * alone and goes the bus's redelivery / dead-letter way.
 */
export function subscribeToEvents(
  bus: EventBus,
  deliveries: Pick<DeliveryStore, 'recordEvents'>,
  webhooks: Pick<WebhookStore, 'deleteForRepository'>,
  logger: Logger,
  opts: ConsumerOptions,
): Promise<Subscription> {
  const recorder = new GroupCommit<EventEnvelope, number>({
    runBatch: (events) => deliveries.recordEvents(events),
    maxBatch: opts.maxBatch ?? DEFAULT_MAX_BATCH,
    onBatchFailed: (err, size) => logger.warn({ err, size }, 'recording a batch of events failed; recording them one by one'),
  });
  const handler = async (event: EventEnvelope) => {
    const problem = envelopeProblem(event);
    if (problem) {
      logger.warn({ event_id: event?.id, kind: event?.kind, request_id: event?.request_id, problem }, 'unusable event refused');
      throw validation(`Unusable event: ${problem}`);
    }
    if (event.kind === REPOSITORY_DELETED) {
      // Outside the group commit: a purge is rare, and it must not share a batch's fate.
      const removed = await forgetRepository(webhooks, event.repository.id);
      logger.info({ event_id: event.id, kind: event.kind, repo_id: event.repository.id, webhooks_removed: removed, request_id: event.request_id }, 'repository webhooks purged');
      return;
    }
    const recorded = await recorder.submit(event);
    const lagSeconds = Math.max(0, (Date.now() - Date.parse(event.occurred_at)) / 1000);
    if (Number.isFinite(lagSeconds)) opts.metrics?.eventRecorded(lagSeconds);
    logger.info({ event_id: event.id, kind: event.kind, repo_id: event.repository.id, recorded, request_id: event.request_id, lag_ms: Math.round(lagSeconds * 1000) }, 'event recorded');
    if (recorded > 0) opts.onRecorded?.();
  };
  return bus.subscribe(opts.queue, [...EVENT_KINDS, REPOSITORY_DELETED], handler, { prefetch: opts.prefetch ?? DEFAULT_PREFETCH });
}
