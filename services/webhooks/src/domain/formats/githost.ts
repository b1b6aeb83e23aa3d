import { deliveryHeaders } from '../signing.js';
import type { WebhookFormat } from './types.js';

/** githost's own format (CONTRACT §7): the event's payload as its producer wrote it, byte for byte. */
export const githostFormat: WebhookFormat = {
  deliveries: (event) => [{ suffix: '', event: event.kind, payload: event.payload }],
  ping: (payload) => ({ event: 'ping', payload }),
  headers: deliveryHeaders,
};
