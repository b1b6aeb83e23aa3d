import type { EventEnvelope } from '@githost/bus';
import type { NewWebhook, WebhookChanges } from './webhook-input.js';
import type { AttemptResult, ClaimedDelivery, Delivery, DeliveryAttempt, Webhook } from './types.js';

/** An attempt to record: `body` is the payload as it was sent (JSON), so it is not serialised twice. */
export interface RecordedAttempt {
  claim: ClaimedDelivery;
  result: AttemptResult;
  body?: string;
}

/** What the webhook use cases need from storage; db/ implements them. */

export interface WebhookStore {
  create(repoId: string, input: NewWebhook): Promise<Webhook>;
  /** Oldest first. */
  list(repoId: string): Promise<Webhook[]>;
  /** The webhook `id` of repository `repoId`, or null (another repository's counts as absent). */
  find(repoId: string, id: string): Promise<Webhook | null>;
  /** Applies the changes to webhook `id` of repository `repoId`; switching it on clears its failure count. Null: no such webhook. */
  update(repoId: string, id: string, changes: WebhookChanges): Promise<Webhook | null>;
  /** Only when both the id and the repository match (seed §4 webhooks rule 4); whether one went. */
  delete(repoId: string, id: string): Promise<boolean>;
  /** Deletes every webhook of the repository with its deliveries and their attempts; how many webhooks went. */
  deleteForRepository(repoId: string): Promise<number>;
}

export interface DirectDelivery {
  webhookId: string;
  /** The X-Githost-Event value. */
  event: string;
  payload: unknown;
  requestId?: string;
}

export interface DeliveryStore {
  /**
   * For each event, its first attempts: one per webhook that selects it and has no delivery of it
   * yet, each under the id derived from (webhook, event), so every attempt of it carries one id.
   */
  firstAttempts(events: EventEnvelope[]): Promise<ClaimedDelivery[][]>;
  /** Records one pending delivery outside event selection (a ping); its id. */
  recordDirect(delivery: DirectDelivery): Promise<string>;
  /** Newest first (CONTRACT §7). */
  listForWebhook(webhookId: string, limit: number): Promise<Delivery[]>;
  find(webhookId: string, id: string): Promise<Delivery | null>;
  attempts(deliveryId: string): Promise<DeliveryAttempt[]>;
  /** Queues a finished delivery again under the same id; null when unknown or still pending. */
  redeliver(webhookId: string, id: string): Promise<Delivery | null>;
  /** Deliveries not finished yet. */
  countPending(): Promise<number>;
}

/** What the delivery worker needs: leases on due deliveries and a place to record attempts. */
export interface DeliveryQueue {
  /** Leases up to `limit` due deliveries for `leaseMs`. */
  claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records each attempt in one transaction (a first attempt creates its delivery, with `body`, the
   *  payload as sent, when given); false for one whose lease was taken over, or whose delivery another
   *  consumer recorded first. */
  recordAttempts(attempts: RecordedAttempt[]): Promise<boolean[]>;
}
