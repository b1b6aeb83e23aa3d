import type { EventEnvelope } from '@githost/bus';
import { deliveryIdFor } from './delivery-id.js';
import { actionOf, selectsEvent } from './events.js';
import { formatOf, type FormatContext, type WebhookType } from './formats/index.js';

export interface PlannedDelivery {
  /** The delivery's id, stable for (webhook, event id): every attempt and every consumer send it under this one. */
  id: string;
  /** The event id recorded with it: the bus event's id, plus the format's suffix for a second request of one event. */
  eventId: string;
  event: string;
  payload: unknown;
}

/**
 * The deliveries an event becomes for one webhook: none unless its `events` select the event
 * (CONTRACT §9), then what the webhook's format makes of it (docs/decisions/webhook-formats.md).
 */
export function plannedDeliveries(hook: { id: string; events: string; type: WebhookType }, event: EventEnvelope, ctx: FormatContext): PlannedDelivery[] {
  if (!selectsEvent(hook.events, event.kind, actionOf(event.payload))) return [];
  return formatOf(hook.type)
    .deliveries(event, ctx)
    .map((d) => {
      const eventId = `${event.id}${d.suffix}`;
      return { id: deliveryIdFor(hook.id, eventId), eventId, event: d.event, payload: d.payload };
    });
}
