import { notFound } from '@githost/errors';
import type { DeliveryStore, WebhookStore } from './ports.js';
import { isRecordId } from './webhook-input.js';

export interface PingPorts {
  /** Only the webhook's id is needed. */
  webhooks: { find(...args: Parameters<WebhookStore['find']>): Promise<{ id: string } | null> };
  deliveries: Pick<DeliveryStore, 'recordDirect'>;
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
 * recorded pending for the worker; its payload is the CONTRACT's `{event, hook_id, repository, sender}`.
 */
export async function pingWebhook(ports: PingPorts, req: PingRequest): Promise<string> {
  const hook = isRecordId(req.hookId) ? await ports.webhooks.find(req.repo.id, req.hookId) : null;
  if (!hook) throw notFound('Webhook not found');
  const payload = {
    event: 'ping',
    hook_id: hook.id,
    repository: { owner: req.repo.owner, name: req.repo.name, full_name: `${req.repo.owner}/${req.repo.name}` },
    sender: { username: req.sender },
  };
  return ports.deliveries.recordDirect({ webhookId: hook.id, event: 'ping', payload, requestId: req.requestId });
}
