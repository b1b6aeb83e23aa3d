import type { EventEnvelope } from '@githost/bus';

/**
 * Why an event cannot become deliveries, or null when it can. Such an event fails its handler on
 * every try, so the bus dead-letters it after its redeliveries (logged there) instead of it
 * blocking the queue; the reason makes that log line say what was wrong.
 */
export function envelopeProblem(event: EventEnvelope): string | null {
  if (typeof event.id !== 'string' || event.id === '') return 'event has no id';
  if (typeof event.kind !== 'string' || event.kind === '') return 'event has no kind';
  if (typeof event.repository?.id !== 'string' || event.repository.id === '') return 'event has no repository id';
  if (typeof event.occurred_at !== 'string' || Number.isNaN(Date.parse(event.occurred_at))) return 'event has no valid occurred_at';
  if (event.payload === undefined || event.payload === null || typeof event.payload !== 'object') return 'event has no payload object';
  return null;
}
