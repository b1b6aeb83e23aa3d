import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
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
  /** Public id of the sign-in session whose secret authenticated the request; absent for tokens
   *  (services/accounts/README.md#sessions). */
  session_id?: string;
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
  /** The client as the gateway saw it, or as the web service vouched for it with a signed
   *  forwarding (docs/security.md#internal-calls); absent when not known. */
  client?: ClientInfo;
}

export interface ClientInfo {
  address: string;
  user_agent: string | null;
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
 * CONTRACT §3: a private repository the caller cannot read looks like no repository at all, so
 * every edge and service answers it as it answers a repository that does not exist (`null`).
 */
export function isRepoVisible<R extends Pick<RepoContext, 'private' | 'permission'>>(repo: R | null): repo is R {
  return repo !== null && (!repo.private || canRead(repo.permission));
}

/**
 * An SSH public key's fingerprint, `SHA256:` and the unpadded base64 of the SHA-256 of its wire
 * blob, exactly what `ssh-keygen -l` prints (docs/decisions/ssh-keys.md): what accounts keeps, what
 * the SSH server and githost-keys look a key up by, and how host keys are shown.
 */
export function sshKeyFingerprint(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The refusal of a push to a repository the caller may only read, the same over HTTP and SSH. */
export const WRITE_REFUSED = 'You do not have write access to this repository';

/** What a caller wants of a repository: `read` (clone, fetch, LFS download) or `write` (push, LFS upload). */
export type RepositoryAccess = 'read' | 'write';

/** Why a caller may not have `access` to a repository: `not_found` (missing, or private and
 *  unreadable), `sign_in` (an anonymous caller who may push after signing in), `read_only`. */
export type RepositoryRefusal = 'not_found' | 'sign_in' | 'read_only';

/**
 * CONTRACT §3 and §9 "Access", the one rule every git transport applies (the gateway's smart HTTP,
 * the SSH server): a repository that does not exist and a private one the caller cannot read look
 * the same; writing needs `write`. undefined when the caller may go ahead.
 */
export function repositoryRefusal<R extends Pick<RepoContext, 'private' | 'permission'>>(repo: R | null, access: RepositoryAccess, anonymous: boolean): RepositoryRefusal | undefined {
  if (!isRepoVisible(repo)) return 'not_found';
  if (access === 'write' && !canWrite(repo.permission)) return anonymous ? 'sign_in' : 'read_only';
  return undefined;
}

/**
 * A deploy key's access (docs/decisions/ssh-keys.md): `read` (read-only key) or `write` on its one
 * repository, and nothing anywhere else, public or not (null: answered as a missing repository).
 */
export function deployKeyRepository(repository: RepoFields, readOnly: boolean, owner: string, name: string): RepoContext | null {
  if (repository.owner.toLowerCase() !== owner.toLowerCase() || repository.name.toLowerCase() !== name.toLowerCase()) return null;
  return { ...repoFieldsOf(repository), permission: readOnly ? 'read' : 'write' };
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

/**
 * Client forwarding (docs/security.md#internal-calls): the web service calls the gateway on behalf of a
 * browser, so the gateway would see the web's address for everyone. The web vouches for the
 * browser's address and user agent with an HMAC over both and the time; the gateway takes them
 * only when the signature is valid and fresh, and strips them otherwise like any client
 * `x-githost-*` header.
 */
export const CLIENT_ADDRESS_HEADER = 'x-githost-client-address';
export const CLIENT_USER_AGENT_HEADER = 'x-githost-client-user-agent';
export const CLIENT_SIGNATURE_HEADER = 'x-githost-client-signature';

/** Same window as an internal gRPC call: a captured header set is worth a minute at most. */
export const CLIENT_FORWARDING_MAX_AGE_MS = INTERNAL_CALL_MAX_AGE_MS;

/** Longest user agent carried; longer ones are cut (it is only shown in a session list). */
export const MAX_USER_AGENT_LENGTH = 512;

// JSON keeps the fields apart whatever they contain (no separator can be smuggled in).
const signClient = (address: string, userAgent: string, timestamp: string, secret: string) =>
  createHmac('sha256', secret).update(JSON.stringify(['client', address, userAgent, timestamp])).digest('hex');

/** The headers the web service adds to a call it makes for a browser at `address`. */
export function signClientForwarding(secret: string, client: { address: string; userAgent: string | null }, now = Date.now()): Record<string, string> {
  const timestamp = String(now);
  const userAgent = (client.userAgent ?? '').slice(0, MAX_USER_AGENT_LENGTH);
  return {
    [CLIENT_ADDRESS_HEADER]: client.address,
    [CLIENT_USER_AGENT_HEADER]: userAgent,
    [CLIENT_SIGNATURE_HEADER]: `${timestamp}.${signClient(client.address, userAgent, timestamp, secret)}`,
  };
}

/**
 * The forwarded client when the three headers are present and signed with `secret` within the
 * window; null otherwise (absent, forged, expired, or malformed: the caller then uses the
 * connection's own address). An empty user agent is null.
 */
export function verifyClientForwarding(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, secret: string, now = Date.now()): ClientInfo | null {
  const address = headers[CLIENT_ADDRESS_HEADER];
  const userAgent = headers[CLIENT_USER_AGENT_HEADER] ?? '';
  const value = headers[CLIENT_SIGNATURE_HEADER];
  if (typeof address !== 'string' || typeof userAgent !== 'string' || typeof value !== 'string') return null;
  if (isIP(address) === 0 || userAgent.length > MAX_USER_AGENT_LENGTH) return null;
  const dot = value.indexOf('.');
  const timestamp = value.slice(0, dot);
  if (dot < 0 || !/^\d{1,15}$/.test(timestamp)) return null;
  const expected = Buffer.from(signClient(address, userAgent, timestamp, secret), 'hex');
  const given = Buffer.from(value.slice(dot + 1), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  if (Math.abs(now - Number(timestamp)) > CLIENT_FORWARDING_MAX_AGE_MS) return null;
  return { address, user_agent: userAgent === '' ? null : userAgent };
}

/**
 * What an LFS batch answer lets its caller do next (docs/decisions/lfs.md): transfer one object
 * of one repository, until `expires_at`. git-lfs sends it back as `Authorization: RemoteAuth
 * <grant>` on the action's href, as GitHub's actions do; the gateway takes it in place of the
 * credential the batch came with, which the gateway never passes on.
 */
export interface LfsActionGrant {
  principal: Principal;
  /** `owner/name` as the batch's path named it. */
  repository: string;
  /** The one object; null for `git-lfs-authenticate`'s credential (docs/decisions/ssh-server.md#git-lfs-authenticate),
   *  which opens the repository's whole LFS API (batch, objects, locks) for that operation. */
  oid: string | null;
  operation: 'upload' | 'download';
  /** Unix milliseconds. */
  expires_at: number;
  /** The most the grant allows whatever the principal's own permission (a deploy key's: it acts
   *  as the repository's owner but never with more than its key grants). */
  max_permission?: Permission;
  /** The repository's id, for a grant a shard checks by itself (docs/decisions/lfs.md#direct-transfers):
   *  with no gateway in front, the grant is the only word on which repository's folder it opens. */
  repository_id?: string;
  /** The object's size in bytes as the batch announced it (upload) or the shard holds it
   *  (download): a direct upload of any other length is refused before a byte is read. */
  size?: number;
}

/** The `Authorization` scheme that carries an LFS action grant. */
export const LFS_ACTION_SCHEME = 'RemoteAuth';

export function signLfsActionGrant(grant: LfsActionGrant, secret: string): string {
  const payload = Buffer.from(JSON.stringify(grant)).toString('base64url');
  return `${payload}.${sign(`lfs-action:${payload}`, secret)}`;
}

/** The grant, or null when it is forged, malformed or expired. */
export function verifyLfsActionGrant(value: string, secret: string, now = Date.now()): LfsActionGrant | null {
  const dot = value.indexOf('.');
  if (dot < 0) return null;
  const payload = value.slice(0, dot);
  const expected = Buffer.from(sign(`lfs-action:${payload}`, secret), 'hex');
  const given = Buffer.from(value.slice(dot + 1), 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LfsActionGrant;
    return typeof grant.expires_at === 'number' && now <= grant.expires_at ? grant : null;
  } catch {
    return null;
  }
}
