import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import type { DeliveryStore, DirectDelivery, WebhookStore } from '../../src/domain/ports.js';
import type { ClaimedDelivery, Delivery, DeliveryAttempt, Webhook } from '../../src/domain/types.js';
import type { NewWebhook, WebhookChanges } from '../../src/domain/webhook-input.js';

/** In-memory ports for domain unit tests: the same contracts as the Postgres stores. */
export class MemoryWebhooks implements WebhookStore {
  hooks: Webhook[] = [];

  async create(repoId: string, input: NewWebhook): Promise<Webhook> {
    const hook: Webhook = { id: randomUUID(), repo_id: repoId, ...input, type: input.type ?? 'githost', is_active: true, consecutive_failures: 0, created_at: new Date() };
    this.hooks.push(hook);
    return { ...hook };
  }
  async list(repoId: string) {
    return this.hooks.filter((h) => h.repo_id === repoId);
  }
  async find(repoId: string, id: string) {
    return this.hooks.find((h) => h.id === id && h.repo_id === repoId) ?? null;
  }
  async update(repoId: string, id: string, changes: WebhookChanges) {
    const hook = this.hooks.find((h) => h.id === id && h.repo_id === repoId);
    if (!hook) return null;
    Object.assign(hook, changes, changes.is_active ? { consecutive_failures: 0 } : {});
    return { ...hook };
  }
  async delete(repoId: string, id: string) {
    const before = this.hooks.length;
    this.hooks = this.hooks.filter((h) => !(h.id === id && h.repo_id === repoId));
    return this.hooks.length < before;
  }
  async deleteForRepository(repoId: string) {
    const before = this.hooks.length;
    this.hooks = this.hooks.filter((h) => h.repo_id !== repoId);
    return before - this.hooks.length;
  }
}

export class MemoryDeliveries implements DeliveryStore {
  deliveries: Delivery[] = [];
  attemptLog = new Map<string, DeliveryAttempt[]>();

  /** Event selection is the Postgres store's job (tested there); not needed by the use cases. */
  async firstAttempts(events: EventEnvelope[]): Promise<ClaimedDelivery[][]> {
    return events.map(() => []);
  }
  async recordDirect(d: DirectDelivery): Promise<string> {
    return this.add({ webhook_id: d.webhookId, event: d.event, payload: d.payload }).id;
  }
  /** A delivery in the given state, for tests to start from. */
  add(fields: Partial<Delivery> & Pick<Delivery, 'webhook_id' | 'event'>): Delivery {
    const at = new Date(Date.UTC(2026, 0, 1) + this.deliveries.length * 1000);
    const delivery: Delivery = { id: randomUUID(), event_id: randomUUID(), payload: {}, status: 'pending', attempts: 0, response_status: null, error: null, duration_ms: null, created_at: at, delivered_at: null, next_attempt_at: at, ...fields };
    this.deliveries.push(delivery);
    return delivery;
  }
  async listForWebhook(webhookId: string, limit: number) {
    return this.deliveries.filter((d) => d.webhook_id === webhookId).reverse().slice(0, limit);
  }
  async find(webhookId: string, id: string) {
    return this.deliveries.find((d) => d.id === id && d.webhook_id === webhookId) ?? null;
  }
  async attempts(deliveryId: string) {
    return this.attemptLog.get(deliveryId) ?? [];
  }
  async redeliver(webhookId: string, id: string) {
    const d = this.deliveries.find((x) => x.id === id && x.webhook_id === webhookId && x.status !== 'pending');
    if (!d) return null;
    Object.assign(d, { status: 'pending', delivered_at: null });
    return { ...d };
  }
  async countPending() {
    return this.deliveries.filter((d) => d.status === 'pending').length;
  }
}
