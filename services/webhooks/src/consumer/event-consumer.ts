import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import { GroupCommit } from '@githost/db';
import type { Logger } from '@githost/logging';
import { validation } from '@githost/errors';
import { EVENT_KINDS } from '../domain/events.js';
import type { DeliveryStore, WebhookStore } from '../domain/ports.js';
import type { ClaimedDelivery } from '../domain/types.js';
import { forgetRepository } from '../domain/repository-purge.js';
import { envelopeProblem } from '../domain/event-envelope.js';

export interface ConsumerOptions {
  queue: string;
  /** Messages in flight at once; also bounds how many share one lookup. */
  prefetch?: number;
  /** Most events looked up in one query. */
  maxBatch?: number;
  metrics?: ConsumerMetrics;
}

export interface ConsumerMetrics {
  /** An event was taken up `lagSeconds` after the change happened (queue lag); observed once its deliveries are recorded. */
  eventRecorded(lagSeconds: number): void;
}

/** Sends a first attempt and resolves once its outcome is recorded (the delivery worker). */
export interface FirstAttemptSender {
  deliverFirst(claim: ClaimedDelivery): Promise<void>;
}

/** git-storage's event for a removed repository: not delivered, it purges the repository's webhooks. */
export const REPOSITORY_DELETED = 'repository_deleted';

export const DEFAULT_PREFETCH = 256;
export const DEFAULT_MAX_BATCH = 128;

/**
 * Turns events into deliveries and sends their first attempts (docs/decisions/webhook-first-attempt-before-record.md). The event stays
 * unacknowledged until every first attempt's outcome is recorded with its delivery, and the bus
 * acks only then: a crash in between brings the event again, a delivery already recorded is not
 * sent again, and one whose record was lost goes out again under the same delivery id. The events
 * in flight together are looked up in one query; one that cannot be looked up or recorded fails
 * alone and goes the bus's redelivery / dead-letter way.
 */
export function subscribeToEvents(
  bus: EventBus,
  deliveries: Pick<DeliveryStore, 'firstAttempts'>,
  webhooks: Pick<WebhookStore, 'deleteForRepository'>,
  sender: FirstAttemptSender,
  logger: Logger,
  opts: ConsumerOptions,
): Promise<Subscription> {
  const lookup = new GroupCommit<EventEnvelope, ClaimedDelivery[]>({
    runBatch: (events) => deliveries.firstAttempts(events),
    maxBatch: opts.maxBatch ?? DEFAULT_MAX_BATCH,
    onBatchFailed: (err, size) => logger.warn({ err, size }, 'looking up a batch of events failed; looking them up one by one'),
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
    const claims = await lookup.submit(event);
    const lagSeconds = Math.max(0, (Date.now() - Date.parse(event.occurred_at)) / 1000);
    // Every attempt is settled before the event is acked; the first failure is the handler's.
    const sent = await Promise.allSettled(claims.map((claim) => sender.deliverFirst(claim)));
    const failed = sent.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    if (Number.isFinite(lagSeconds)) opts.metrics?.eventRecorded(lagSeconds);
    // An event no webhook wants is logged at debug: a push of 10,000 refs to a repository
    // without webhooks wrote 10,000 info lines in a second (docs/decisions/many-refs-push.md).
    const fields = { event_id: event.id, kind: event.kind, repo_id: event.repository.id, recorded: claims.length, request_id: event.request_id, lag_ms: Math.round(lagSeconds * 1000) };
    if (claims.length > 0) logger.info(fields, 'event recorded');
    else logger.debug(fields, 'event recorded');
  };
  return bus.subscribe(opts.queue, [...EVENT_KINDS, REPOSITORY_DELETED], handler, { prefetch: opts.prefetch ?? DEFAULT_PREFETCH });
}
