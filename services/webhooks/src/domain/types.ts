import type { WebhookType } from './formats/index.js';

/** The records the webhook use cases work with; db/ stores them, http/ serialises them. */

export interface Webhook {
  id: string;
  repo_id: string;
  url: string;
  secret: string | null;
  events: string;
  /** The format its deliveries are sent in (docs/decisions/webhook-formats.md). */
  type: WebhookType;
  is_active: boolean;
  consecutive_failures: number;
  created_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  payload: unknown;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date;
}

export interface DeliveryAttempt {
  number: number;
  status: 'succeeded' | 'failed';
  error: string | null;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  created_at: Date;
}

/**
 * A delivery this process is about to send: a pending one it has leased, or the first attempt of
 * an event's delivery, which is recorded only with that attempt's outcome (docs/decisions/webhook-first-attempt-before-record.md).
 */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event: string;
  payload: unknown;
  attempts: number;
  round_start: number;
  url: string;
  secret: string | null;
  /** The webhook's format: which headers each attempt carries. */
  type: WebhookType;
  /** Request id of the change behind the event, for logs (null for events without one). */
  request_id: string | null;
  /** Set for a first attempt: the delivery has no row yet, its attempt's record creates it. */
  first?: FirstAttempt;
}

export interface FirstAttempt {
  event_id: string;
  /** When the event was taken up: the delivery's created_at. */
  created_at: Date;
}

export interface AttemptResult {
  /** What the delivery becomes: still pending (a retry is scheduled), delivered or failed. */
  status: DeliveryStatus;
  retryInMs?: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}
