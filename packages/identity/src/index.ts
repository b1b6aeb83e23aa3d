import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { unauthenticated } from '@githost/errors';

/**
 * The identity the gateway established for a request, forwarded to services in a header signed
 * with the shared internal secret. Services trust nothing else: a client cannot forge it, and a
 * service reached directly without it lets no one in (CONTRACT §3).
 */
export type Permission = 'none' | 'read' | 'write' | 'admin';

export interface Principal {
  /** User id; null for the GITHOST_ADMIN_TOKEN bootstrap principal, which has no user record. */
  user_id: string | null;
  username: string;
  email: string;
  is_admin: boolean;
}

export interface RepoContext {
  id: string;
  owner: string;
  name: string;
  default_branch: string;
  private: boolean;
  /** git-storage shard that holds the repository. */
  shard: string;
  /** The caller's permission on this repository, decided by accounts. */
  permission: Permission;
  /** Owner's user id (the seed's `sender` of merge_request events is the owner's name). */
  owner_id: string;
}

/** A repository as every service addresses it: RepoContext without the caller's permission. */
export type RepoFields = Omit<RepoContext, 'permission'>;

/** RepoFields picked from any record that has them (accounts' row, its gRPC message), so what
 *  accounts answers and what the gateway signs name the same fields. */
export function repoFieldsOf(r: RepoFields): RepoFields {
  return { id: r.id, owner: r.owner, name: r.name, default_branch: r.default_branch, private: r.private, shard: r.shard, owner_id: r.owner_id };
}

export interface Identity {
  /** null when the caller is anonymous. */
  principal: Principal | null;
  /** Set on /api/repos/{owner}/{repo}/... and git transport routes, resolved once at the gateway. */
  repo: RepoContext | null;
  request_id: string;
  /** Unix milliseconds when the gateway signed it. */
  issued_at: number;
}

export const IDENTITY_HEADER = 'x-githost-identity';
export const SIGNATURE_HEADER = 'x-githost-identity-signature';

/** Long enough for a slow 200 MB push to start, short enough that a leaked header soon expires. */
const MAX_AGE_MS = 5 * 60_000;

const sign = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest('hex');

export function encodeIdentity(identity: Identity, secret: string): Record<string, string> {
  const payload = Buffer.from(JSON.stringify(identity)).toString('base64url');
  return { [IDENTITY_HEADER]: payload, [SIGNATURE_HEADER]: sign(payload, secret) };
}

export function decodeIdentity(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, secret: string, now = Date.now()): Identity {
  const payload = headers[IDENTITY_HEADER];
  const signature = headers[SIGNATURE_HEADER];
  if (typeof payload !== 'string' || typeof signature !== 'string') throw unauthenticated('Missing internal identity');
  const expected = Buffer.from(sign(payload, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthenticated('Invalid internal identity');
  const identity = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Identity;
  if (typeof identity.issued_at !== 'number' || Math.abs(now - identity.issued_at) > MAX_AGE_MS) throw unauthenticated('Expired internal identity');
  return identity;
}

/** Write implies read; admin implies write (CONTRACT §3). */
export function canRead(p: Permission | undefined): boolean {
  return p === 'read' || p === 'write' || p === 'admin';
}

export function canWrite(p: Permission | undefined): boolean {
  return p === 'write' || p === 'admin';
}

/**
 * Internal gRPC calls carry their own credential in metadata: an HMAC with the shared internal
 * secret over the full method path and the time of the call. Bound to the method, so a captured
 * credential cannot call another one; short-lived, so it soon stops working at all (README,
 * "Internal calls").
 */
export const INTERNAL_CALL_METADATA = 'x-githost-internal-call';

/** How long a signed call stays valid either side of its timestamp (covers clock skew). */
export const INTERNAL_CALL_MAX_AGE_MS = 60_000;

const signCall = (method: string, timestamp: string, secret: string) => createHmac('sha256', secret).update(`grpc\n${method}\n${timestamp}`).digest('hex');

/** The metadata value for a call to `method` (`/package.Service/Method`) made at `now`. */
export function signInternalCall(method: string, secret: string, now = Date.now()): string {
  const timestamp = String(now);
  return `${timestamp}.${signCall(method, timestamp, secret)}`;
}

/** Throws `unauthenticated` unless `value` was signed with `secret` for `method` within the window. */
export function verifyInternalCall(method: string, value: unknown, secret: string, now = Date.now()): void {
  if (typeof value !== 'string' || value === '') throw unauthenticated('Missing internal call credential');
  const dot = value.indexOf('.');
  const timestamp = value.slice(0, dot);
  if (dot < 0 || !/^\d{1,15}$/.test(timestamp)) throw unauthenticated('Invalid internal call credential');
  const expected = Buffer.from(signCall(method, timestamp, secret), 'hex');
  const given = Buffer.from(value.slice(dot + 1), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unauthenticated('Invalid internal call credential');
  if (Math.abs(now - Number(timestamp)) > INTERNAL_CALL_MAX_AGE_MS) throw unauthenticated('Expired internal call credential');
}
