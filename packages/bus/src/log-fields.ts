import type { EventEnvelope } from './event-bus.js';

/** What every bus log line about one event carries, so its request can be followed across services. */
export function eventLogFields(event: EventEnvelope): { event_id: string; kind: string; request_id: string | undefined } {
  return { event_id: event.id, kind: event.kind, request_id: event.request_id };
}
