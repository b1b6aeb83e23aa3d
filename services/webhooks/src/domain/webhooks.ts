import { conflict, notFound } from '@githost/errors';
import { requireWritableRepo, type Requester } from './access.js';
import { pingWebhook } from './ping.js';
import type { DeliveryStore, WebhookStore } from './ports.js';
import type { Delivery, DeliveryAttempt, Webhook } from './types.js';
import type { FormatContext } from './formats/index.js';
import { isRecordId, parseNewWebhook, parseWebhookChanges } from './webhook-input.js';

/** The webhook management use cases (seed §4 webhooks, CONTRACT §7, §9); every one needs write access. */
export interface WebhookPorts {
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  /** Where formatted payloads' links point (a ping to a slack webhook); PUBLIC_URL's default when absent. */
  formatContext?: FormatContext;
}

const DEFAULT_DELIVERY_PAGE = 50;
const MAX_DELIVERY_PAGE = 100;

/** seed §4 webhooks: POST, rules 1-3. */
export async function createWebhook(ports: WebhookPorts, who: Requester, body: unknown): Promise<Webhook> {
  const repo = requireWritableRepo(who);
  return ports.webhooks.create(repo.id, parseNewWebhook(body));
}

export async function listWebhooks(ports: WebhookPorts, who: Requester): Promise<Webhook[]> {
  return ports.webhooks.list(requireWritableRepo(who).id);
}

/** One webhook of this repository with its settings (docs/decisions/gitea-api.md#hooks). */
export async function getWebhook(ports: WebhookPorts, who: Requester, hookId: string): Promise<Webhook> {
  return ownWebhook(ports, who, hookId);
}

/** Changes url, secret, events, type or is_active of one webhook of this repository. */
export async function updateWebhook(ports: WebhookPorts, who: Requester, hookId: string, body: unknown): Promise<Webhook> {
  const repo = requireWritableRepo(who);
  const changes = parseWebhookChanges(body);
  const updated = isRecordId(hookId) ? await ports.webhooks.update(repo.id, hookId, changes) : null;
  if (!updated) throw notFound('Webhook not found');
  return updated;
}

/** seed §4 webhooks rule 4: done whether or not a webhook of this repository had that id. */
export async function deleteWebhook(ports: WebhookPorts, who: Requester, hookId: string): Promise<void> {
  const repo = requireWritableRepo(who);
  if (isRecordId(hookId)) await ports.webhooks.delete(repo.id, hookId);
}

/** CONTRACT §9: a ping on request, to this webhook only; the new delivery's id. */
export async function pingOnRequest(ports: WebhookPorts, who: Requester, hookId: string): Promise<string> {
  const repo = requireWritableRepo(who);
  return pingWebhook(ports, { repo, hookId, sender: who.username ?? '', requestId: who.requestId });
}

/** CONTRACT §7: newest first, `limit` 1-100 (default 50; anything else counts as absent). */
export async function listDeliveries(ports: WebhookPorts, who: Requester, hookId: string, rawLimit: unknown): Promise<Delivery[]> {
  const hook = await ownWebhook(ports, who, hookId);
  return ports.deliveries.listForWebhook(hook.id, pageSize(rawLimit));
}

/** One delivery with every attempt (CONTRACT §9). */
export async function getDelivery(ports: WebhookPorts, who: Requester, hookId: string, deliveryId: string): Promise<{ delivery: Delivery; attempts: DeliveryAttempt[] }> {
  const hook = await ownWebhook(ports, who, hookId);
  const delivery = await findDelivery(ports, hook.id, deliveryId);
  return { delivery, attempts: await ports.deliveries.attempts(delivery.id) };
}

/** A finished delivery queued again under its id; a pending one is a conflict. */
export async function redeliver(ports: WebhookPorts, who: Requester, hookId: string, deliveryId: string): Promise<Delivery> {
  const hook = await ownWebhook(ports, who, hookId);
  const delivery = await findDelivery(ports, hook.id, deliveryId);
  const queued = await ports.deliveries.redeliver(hook.id, delivery.id);
  if (!queued) throw conflict('Delivery is still pending');
  return queued;
}

/** The webhook named in the path, only when it belongs to this repository. */
async function ownWebhook(ports: WebhookPorts, who: Requester, hookId: string): Promise<Webhook> {
  const repo = requireWritableRepo(who);
  const hook = isRecordId(hookId) ? await ports.webhooks.find(repo.id, hookId) : null;
  if (!hook) throw notFound('Webhook not found');
  return hook;
}

async function findDelivery(ports: WebhookPorts, hookId: string, deliveryId: string): Promise<Delivery> {
  const delivery = isRecordId(deliveryId) ? await ports.deliveries.find(hookId, deliveryId) : null;
  if (!delivery) throw notFound('Delivery not found');
  return delivery;
}

function pageSize(raw: unknown): number {
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1) return DEFAULT_DELIVERY_PAGE;
  return Math.min(n, MAX_DELIVERY_PAGE);
}
