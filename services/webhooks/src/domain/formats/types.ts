import type { EventEnvelope } from '@githost/bus';
import type { DeliveryRequest } from '../signing.js';

/** The formats a webhook can be sent in (Gitea's `type` field, docs/decisions/webhook-formats.md). */
export const WEBHOOK_TYPES = ['githost', 'gitea', 'slack'] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];

/** What a format needs beyond the event: where githost's pages are, for the links it sends. */
export interface FormatContext {
  /** `PUBLIC_URL` without a trailing slash. */
  publicUrl: string;
}

/** One request an event becomes for a webhook: a delivery of its own. */
export interface FormattedDelivery {
  /**
   * Appended to the event id to make this delivery's event id: '' for the one delivery a githost
   * webhook gets, `:create` or `:delete` for a second request of the same event (Gitea's
   * `create`/`delete` beside `push`), so each has its own stable delivery id.
   */
  suffix: DeliverySuffix;
  /** Stored as the delivery's `event` and sent in the format's event header. */
  event: string;
  payload: unknown;
}

/** Every suffix any format uses. */
export type DeliverySuffix = '' | ':create' | ':delete';

export interface WebhookFormat {
  /** The requests an event becomes, in the order they are sent; empty when this format sends nothing for it. */
  deliveries(event: EventEnvelope, ctx: FormatContext): FormattedDelivery[];
  /** A ping on request (CONTRACT §9), from githost's own ping payload. */
  ping(payload: PingPayload, ctx: FormatContext): { event: string; payload: unknown };
  /** Every header of one attempt's POST. */
  headers(req: DeliveryRequest): Record<string, string>;
}

export interface PingPayload {
  event: 'ping';
  hook_id: string;
  repository: { owner: string; name: string; full_name: string };
  sender: { username: string };
}
