import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import type { Logger } from '@githost/logging';
import type { DeliveryRepository } from '../db/delivery-repository.js';
import { validation } from '@githost/errors';
import { EVENT_KINDS } from '../domain/events.js';
import { envelopeProblem } from '../domain/event-envelope.js';

export interface ConsumerOptions {
  queue: string;
  prefetch?: number;
  /** Called after deliveries were recorded, so the worker sends them now. */
  onRecorded?: () => void;
  metrics?: ConsumerMetrics;
}

export interface ConsumerMetrics {
  /** An event's deliveries are durable, `lagSeconds` after the change happened (queue lag). */
  eventRecorded(lagSeconds: number): void;
}

/**
 * Turns events into pending deliveries. The handler resolves only after the deliveries are
 * committed, and the bus acks only then: a crash in between brings the event again, and the
 * UNIQUE (webhook_id, event_id) key makes the second recording a no-op.
 */
export function subscribeToEvents(bus: EventBus, deliveries: DeliveryRepository, logger: Logger, opts: ConsumerOptions): Promise<Subscription> {
  const handler = async (event: EventEnvelope) => {
    const problem = envelopeProblem(event);
    if (problem) {
      logger.warn({ event_id: event?.id, kind: event?.kind, request_id: event?.request_id, problem }, 'unusable event refused');
      throw validation(`Unusable event: ${problem}`);
    }
    const recorded = await deliveries.recordEvent(event);
    const lagSeconds = Math.max(0, (Date.now() - Date.parse(event.occurred_at)) / 1000);
    if (Number.isFinite(lagSeconds)) opts.metrics?.eventRecorded(lagSeconds);
    logger.info({ event_id: event.id, kind: event.kind, repo_id: event.repository.id, recorded, request_id: event.request_id, lag_ms: Math.round(lagSeconds * 1000) }, 'event recorded');
    if (recorded > 0) opts.onRecorded?.();
  };
  return bus.subscribe(opts.queue, [...EVENT_KINDS], handler, { prefetch: opts.prefetch ?? 32 });
}
