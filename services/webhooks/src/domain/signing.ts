import { createHmac } from 'node:crypto';

/** Sent as `User-Agent: githost-hookshot/<version>` (CONTRACT §7). */
export const HOOKSHOT_VERSION = '0.1.0';

export interface DeliveryRequest {
  deliveryId: string;
  event: string;
  body: string;
  secret: string | null;
  /** Unix seconds of this attempt, for the Standard Webhooks timestamp. */
  timestamp: number;
}

/** GitHub's scheme, so existing receiver libraries verify it (CONTRACT §7). */
export function hubSignature256(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Standard Webhooks (standardwebhooks.com): HMAC-SHA256 over `<id>.<timestamp>.<body>`, keyed by the secret's bytes. */
export function standardWebhookSignature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Every header of a delivery POST; the signatures only when the webhook has a secret. */
export function deliveryHeaders(req: DeliveryRequest): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `githost-hookshot/${HOOKSHOT_VERSION}`,
    'x-githost-event': req.event,
    'x-githost-delivery': req.deliveryId,
    'webhook-id': req.deliveryId,
    'webhook-timestamp': String(req.timestamp),
  };
  if (req.secret !== null) {
    headers['x-hub-signature-256'] = hubSignature256(req.secret, req.body);
    headers['webhook-signature'] = standardWebhookSignature(req.secret, req.deliveryId, req.timestamp, req.body);
  }
  return headers;
}
