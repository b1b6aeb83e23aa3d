import { notFound } from '@githost/errors';
import type { DeliveryStore, WebhookStore } from './ports.js';
import { isRecordId } from './webhook-input.js';
import { DEFAULT_FORMAT_CONTEXT, formatOf, type FormatContext, type PingPayload, type WebhookType } from './formats/index.js';

export interface PingPorts {
  /** The webhook's id, and its type for the format (absent: githost's). */
  webhooks: { find(...args: Parameters<WebhookStore['find']>): Promise<{ id: string; type?: WebhookType } | null> };
  deliveries: Pick<DeliveryStore, 'recordDirect'>;
  /** Where a formatted ping's links point; PUBLIC_URL's default when absent. */
  formatContext?: FormatContext;
}

export interface PingRequest {
  repo: { id: string; owner: string; name: string };
  hookId: string;
  /** The user asking; the sender of the payload. */
  sender: string;
  requestId?: string;
}

/**
 * CONTRACT §9: a `ping` is sent only on request, to this one webhook, whatever its `events`
 * names (GitHub's "ping" on demand). It is a delivery like any other (signed, retried, listed),
 * recorded pending for the worker; its payload is the CONTRACT's `{event, hook_id, repository, sender}`,
 * in the webhook's format (a slack webhook gets a chat line; docs/decisions/webhook-formats.md).
 */
export async function pingWebhook(ports: PingPorts, req: PingRequest): Promise<string> {
  const hook = isRecordId(req.hookId) ? await ports.webhooks.find(req.repo.id, req.hookId) : null;
  if (!hook) throw notFound('Webhook not found');
  const ping: PingPayload = {
    event: 'ping',
    hook_id: hook.id,
    repository: { owner: req.repo.owner, name: req.repo.name, full_name: `${req.repo.owner}/${req.repo.name}` },
    sender: { username: req.sender },
  };
  const { event, payload } = formatOf(hook.type ?? 'githost').ping(ping, ports.formatContext ?? DEFAULT_FORMAT_CONTEXT);
  return ports.deliveries.recordDirect({ webhookId: hook.id, event, payload, requestId: req.requestId });
}
