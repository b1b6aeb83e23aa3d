import type { WebhookStore } from './ports.js';

/**
 * A deleted repository takes its webhooks, their deliveries and attempts with it (README
 * "Decisions": repository deletion). Idempotent: the event may come again, and a repository
 * with nothing left purges nothing.
 */
export function forgetRepository(webhooks: Pick<WebhookStore, 'deleteForRepository'>, repoId: string): Promise<number> {
  return webhooks.deleteForRepository(repoId);
}
