import { validation } from '@githost/errors';
import { giteaFormat } from './gitea.js';
import { githostFormat } from './githost.js';
import { slackFormat } from './slack.js';
import { WEBHOOK_TYPES, type FormatContext, type WebhookFormat, type WebhookType } from './types.js';

export { WEBHOOK_TYPES, type FormatContext, type FormattedDelivery, type PingPayload, type WebhookFormat, type WebhookType } from './types.js';

/** The one place a webhook's type chooses its format (docs/decisions/webhook-formats.md). */
const FORMATS: Record<WebhookType, WebhookFormat> = { githost: githostFormat, gitea: giteaFormat, slack: slackFormat };

export function formatOf(type: WebhookType): WebhookFormat {
  return FORMATS[type] ?? githostFormat;
}

const TYPES = new Set<string>(WEBHOOK_TYPES);

/** Where links point when the service is not told otherwise: PUBLIC_URL's default (docs/configuration.md). */
export const DEFAULT_FORMAT_CONTEXT: FormatContext = { publicUrl: 'http://localhost:3000' };

/** A create request's `type`: omitted (or null) is `githost`; anything not in WEBHOOK_TYPES is refused. */
export function parseWebhookType(input: unknown): WebhookType {
  if (input === undefined || input === null) return 'githost';
  if (typeof input !== 'string') throw validation('type must be a string');
  if (!TYPES.has(input)) throw validation(`Unknown webhook type: ${input} (one of ${WEBHOOK_TYPES.join(', ')})`);
  return input as WebhookType;
}
