import { validation } from '@githost/errors';
import { parseTokenName } from './input.js';
import { TOKEN_SCOPES } from './scopes.js';
import type { TokenScope } from './types.js';

/** `POST .../tokens {name?, scopes?, expires_at?}`, checked (services/accounts/README.md#users-and-tokens). */
export interface CreateTokenInput {
  name: string | null;
  /** Absent: everything the token's user has. */
  scopes: TokenScope[] | undefined;
  /** ISO 8601 (UTC, milliseconds); null: never expires. */
  expires_at: string | null;
}

// RFC 3339 date-time: a full date, a time and an explicit zone, so the moment is never guessed.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;
const EXPIRES_FORMAT = 'expires_at must be an ISO 8601 date-time with a time zone, e.g. 2030-01-31T00:00:00Z';

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Parses and checks a future expiry; each field in its range (no 31 February, no hour 24). */
export function parseExpiresAt(value: unknown, now: number): string | null {
  if (value === undefined || value === null) return null;
  const m = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  if (!m) throw validation(EXPIRES_FORMAT);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const zoneHours = m[9] === undefined ? 0 : Number(m[9]);
  const zoneMinutes = m[10] === undefined ? 0 : Number(m[10]);
  const inRange = year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month)
    && hour <= 23 && minute <= 59 && second <= 59 && zoneHours <= 23 && zoneMinutes <= 59;
  const at = Date.parse(value as string);
  if (!inRange || Number.isNaN(at)) throw validation(EXPIRES_FORMAT);
  if (at <= now) throw validation('expires_at must be in the future');
  return new Date(at).toISOString();
}

/** A non-empty list of known scopes; duplicates are harmless. */
export function parseScopes(value: unknown): TokenScope[] | undefined {
  if (value === undefined || value === null) return undefined;
  const known = (s: unknown): s is TokenScope => typeof s === 'string' && (TOKEN_SCOPES as readonly string[]).includes(s);
  if (!Array.isArray(value) || !value.every(known)) throw validation('scopes must be an array of "read", "write" and "admin"');
  if (value.length === 0) throw validation('scopes must not be empty');
  return value;
}

export function parseCreateToken(raw: unknown, now: number): CreateTokenInput {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) throw validation('Request body must be a JSON object');
  const body = (raw ?? {}) as Record<string, unknown>;
  return { name: parseTokenName(raw), scopes: parseScopes(body.scopes), expires_at: parseExpiresAt(body.expires_at, now) };
}
