import type { Delivery, DeliveryAttempt, Webhook } from '../domain/types.js';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** seed §2: webhook responses carry exactly these fields; the secret never leaves the store. */
export function webhookJson(w: Webhook) {
  return { id: w.id, repo_id: w.repo_id, url: w.url, events: w.events, is_active: w.is_active, created_at: iso(w.created_at) };
}

/**
 * One webhook's settings (`GET`/`PATCH .../webhooks/{id}`, beside the seed's endpoints): the
 * seed's fields plus the delivery format, which the seed's answers do not carry.
 */
export function webhookSettingsJson(w: Webhook) {
  return { ...webhookJson(w), type: w.type };
}

/** CONTRACT §7 delivery list element. */
export function deliveryJson(d: Delivery) {
  return {
    id: d.id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    error: d.error,
    duration_ms: d.duration_ms,
    created_at: iso(d.created_at),
    delivered_at: iso(d.delivered_at),
  };
}

/** One delivery with what was sent and every attempt (CONTRACT §9). */
export function deliveryDetailJson(d: Delivery, attempts: DeliveryAttempt[]) {
  return {
    ...deliveryJson(d),
    webhook_id: d.webhook_id,
    event_id: d.event_id,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    payload: d.payload,
    attempt_log: attempts.map((a) => ({
      number: a.number,
      status: a.status,
      response_status: a.response_status,
      error: a.error,
      duration_ms: a.duration_ms,
      response_body: a.response_body,
      created_at: iso(a.created_at),
    })),
  };
}
