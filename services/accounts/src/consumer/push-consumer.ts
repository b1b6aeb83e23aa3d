import type { EventBus, EventEnvelope, Subscription } from '@githost/bus';
import type { Logger } from '@githost/logging';
import type { PushActivity } from '../domain/ports.js';

/** The one kind accounts learns from (ARCHITECTURE "Events"): git-storage's `push`. */
export const CONSUMED_KINDS = ['push'] as const;

/**
 * Keeps each repository's last push for the Explore list (docs/decisions/explore-lists.md). The
 * bus acks once the row is written; a handler that throws (the database down) gets the event
 * again, and recordPush keeps the later time, so a redelivery changes nothing. An event this
 * handler can never apply is logged and dropped rather than retried into the dead letters.
 */
export function subscribeToPushes(bus: EventBus, activity: PushActivity, logger: Logger, queue: string): Promise<Subscription> {
  const handler = async (event: EventEnvelope) => {
    const pushedAt = new Date(event?.occurred_at ?? '');
    if (!event?.repository?.id || Number.isNaN(pushedAt.getTime())) {
      logger.warn({ event_id: event?.id, kind: event?.kind }, 'push event without a repository or a time ignored');
      return;
    }
    await activity.recordPush(event.repository.id, pushedAt);
  };
  return bus.subscribe(queue, [...CONSUMED_KINDS], handler);
}
