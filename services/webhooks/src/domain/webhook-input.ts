import { validation } from '@githost/errors';
import { parseEvents } from './events.js';
import { parseWebhookType, type WebhookType } from './formats/index.js';

/** Longest delivery URL accepted; longer ones are refused rather than stored (CONTRACT §7). */
export const MAX_URL_LENGTH = 2048;

export interface NewWebhook {
  url: string;
  secret: string | null;
  events: string;
  /** Absent: githost's own format. */
  type?: WebhookType;
}

/**
 * Validates a create request body in the seed's order: url first (seed §4 webhooks rule 2), then
 * the defaults of rule 3. The seed asks for no format check beyond non-empty; a delivery target
 * must still be an http(s) URL without credentials, or the service would be a proxy to anything.
 */
export function parseNewWebhook(body: unknown): NewWebhook {
  const input = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const url = parseUrl(input.url);
  const secret = parseSecret(input.secret);
  const events = parseEvents(input.events);
  // Not in the seed's body: optional, githost's own format when omitted (docs/decisions/webhook-formats.md).
  if (input.type === undefined || input.type === null) return { url, secret, events };
  return { url, secret, events, type: parseWebhookType(input.type) };
}

/** Changes to a webhook (`PATCH .../webhooks/{id}`): each field optional, validated as on create. */
export interface WebhookChanges {
  url?: string;
  secret?: string | null;
  events?: string;
  type?: WebhookType;
  is_active?: boolean;
}

/** Only the fields given change; `secret` "" or null removes it; `is_active` must be a boolean. */
export function parseWebhookChanges(body: unknown): WebhookChanges {
  const input = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const out: WebhookChanges = {};
  if (input.url !== undefined) out.url = parseUrl(input.url);
  if (input.secret !== undefined) out.secret = parseSecret(input.secret);
  if (input.events !== undefined) out.events = parseEvents(input.events);
  if (input.type !== undefined) out.type = parseWebhookType(input.type);
  if (input.is_active !== undefined) {
    if (typeof input.is_active !== 'boolean') throw validation('is_active must be a boolean');
    out.is_active = input.is_active;
  }
  return out;
}

function parseUrl(raw: unknown): string {
  // seed §4 webhooks rule 2
  if (raw === undefined || raw === null || raw === '') throw validation('URL is required');
  if (typeof raw !== 'string') throw validation('url must be a string');
  const url = raw.trim();
  if (url === '') throw validation('URL is required');
  if (url.length > MAX_URL_LENGTH) throw validation(`URL must be at most ${MAX_URL_LENGTH} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validation('URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw validation('URL must use http or https');
  if (parsed.username !== '' || parsed.password !== '') throw validation('URL must not contain credentials');
  if (parsed.hostname === '') throw validation('URL is not a valid URL');
  return url;
}

/** seed §4 webhooks rule 3 and CONTRACT §9: omitted or empty-string secret is stored as null. */
function parseSecret(raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') throw validation('secret must be a string');
  return raw;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are uuids; anything else names no record (CONTRACT §9: DELETE of a malformed id is 204). */
export function isRecordId(id: string): boolean {
  return UUID_RE.test(id);
}
