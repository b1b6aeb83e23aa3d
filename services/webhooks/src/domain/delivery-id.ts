import { v5 as uuidv5 } from 'uuid';

/** githost's own namespace for delivery ids (a random v4, fixed forever). */
const DELIVERY_NAMESPACE = '6f1d7c2e-3b8a-4f0e-9a51-2c7d4e8b9f13';

/**
 * The id of the delivery of event `eventId` to webhook `webhookId`: the same on every consumer
 * that takes the event up, so a first attempt sent again after a crash, before its record was
 * written, reaches the receiver under the same X-Githost-Delivery (CONTRACT §8: one id per
 * (webhook, event)).
 */
export function deliveryIdFor(webhookId: string, eventId: string): string {
  return uuidv5(`${webhookId}\n${eventId}`, DELIVERY_NAMESPACE);
}
