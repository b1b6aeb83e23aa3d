import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { forbidden, notFound, unauthenticated, validation } from '@githost/errors';
import type { AccountsDeps } from './deps.js';
import { checkPassword, givenPassword } from './passwords.js';
import type { PasswordHasher, SessionRecord, SessionStore } from './ports.js';
import { scopesOf } from './scopes.js';
import type { Caller, TokenScope, User } from './types.js';
import { requireSiteAdmin } from './users.js';

/** Session secrets are told apart from tokens (`ghs_`) by this prefix (services/accounts/README.md#sessions). */
export const SESSION_PREFIX = 'ghsess_';
const SECRET_BYTES = 32;
/** Longer input cannot be one of ours; refuse it before hashing. */
const MAX_SECRET_LENGTH = 512;
/** Sliding the idle expiry on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;
const NAME_SHAPE = /^[A-Za-z0-9._-]{1,100}$/;
const SESSION_ID_SHAPE = /^[0-9A-Za-z-]{1,64}$/;

export const INVALID_SIGN_IN = 'Invalid username or password';
export const WRONG_CURRENT_PASSWORD = 'Current password is incorrect';
export const NO_PASSWORD_SET = 'This account has no password yet; a site admin sets the first one';

export interface SessionSettings {
  /** A session unused this long ends (sliding). */
  idleTimeoutMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  maxAgeMs: number;
  /** Failed sign-ins (and wrong current passwords) per account, and per client address, within
   *  `failureWindowMs`, after which further attempts are refused with 429. */
  failuresPerAccount: number;
  failuresPerAddress: number;
  failureWindowMs: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  idleTimeoutMs: 14 * 24 * 3600_000,
  maxAgeMs: 30 * 24 * 3600_000,
  failuresPerAccount: 10,
  failuresPerAddress: 30,
  failureWindowMs: 15 * 60_000,
};

/** The client a request came from, as the gateway signed it (docs/security.md#internal-calls). */
export interface ClientOrigin {
  address: string | null;
  user_agent: string | null;
}

export interface IssuedSession {
  id: string;
  /** Shown once, never stored: only its hash is. */
  secret: string;
  expires_at: string;
  idle_expires_at: string;
}

/** Too many failures: the caller waits `retryAfterSeconds` (HTTP 429 with Retry-After). */
export interface Throttled {
  throttled: true;
  retryAfterSeconds: number;
}

export interface AuthenticatedSession {
  user: User;
  session_id: string;
  scopes: TokenScope[];
  /** When the session ends unless used again (the earlier of its idle and absolute expiry). */
  expires_at: string;
}

export const hashSecret = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

const iso = (ms: number) => new Date(ms).toISOString();

type SessionDeps = Pick<AccountsDeps, 'sessions' | 'hasher' | 'sessionSettings' | 'clock'>;

/*
 * services/accounts/README.md#sessions: sign-in with a password, server-side sessions whose secret works like a
 * token with all of the user's powers (a password sign-in on GitHub), idle and absolute expiry,
 * per-account and per-address limits on failures, and password changes.
 */

/** The hash an unknown user's password is checked against, one per hasher. */
const dummyHashes = new WeakMap<PasswordHasher, Promise<string>>();

function dummy(hasher: PasswordHasher): Promise<string> {
  let hash = dummyHashes.get(hasher);
  if (!hash) {
    hash = hasher.hash(randomBytes(16).toString('hex'));
    dummyHashes.set(hasher, hash);
    hash.catch(() => dummyHashes.delete(hasher));
  }
  return hash;
}

/** Makes the dummy hash before the first sign-in, so an unknown user's first attempt costs what any other does. */
export function warmSignIn(hasher: PasswordHasher): void {
  void dummy(hasher).catch(() => undefined);
}

/**
 * POST /api/sessions. Unknown user, suspended user, no password set and wrong password all
 * answer the same 401 after the same work (an unknown user's attempt is checked against a
 * dummy hash), so the answer tells nobody which usernames exist. Failures count against the
 * account name and the address whether or not the account exists.
 */
export async function signIn(deps: SessionDeps, raw: unknown, client: ClientOrigin): Promise<IssuedSession | Throttled> {
  const body = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
  if (!body) throw validation('Request body must be a JSON object');
  const username = givenString(body.username, 'username');
  const password = givenPassword(body.password, 'password');
  const keys = failureKeys(username, client);
  const throttledFor = await throttled(deps, keys);
  if (throttledFor) return throttledFor;

  const found = NAME_SHAPE.test(username) ? await deps.sessions.credentialsOf(username) : null;
  const hash = found?.password_hash ?? (await dummy(deps.hasher));
  const matches = await deps.hasher.verify(hash, password);
  if (!found || !found.password_hash || !matches || found.user.suspended_at) {
    await deps.sessions.recordFailures(keys, new Date(deps.clock()));
    throw unauthenticated(INVALID_SIGN_IN);
  }
  return issue(deps, found.user.id, client);
}

/** A session secret as a credential; `Authentication required` for anything not a live
 *  session of an active user. Slides the idle expiry at most once a minute. */
export async function authenticateSession(deps: SessionDeps, secret: string): Promise<AuthenticatedSession> {
  if (!secret.startsWith(SESSION_PREFIX) || secret.length > MAX_SECRET_LENGTH) throw unauthenticated();
  const now = deps.clock();
  const found = await deps.sessions.findActive(hashSecret(secret), new Date(now));
  if (!found) throw unauthenticated();
  let { session } = found;
  if (Date.parse(session.last_used_at) <= now - TOUCH_INTERVAL_MS) {
    const idle = iso(Math.min(now + deps.sessionSettings.idleTimeoutMs, Date.parse(session.expires_at)));
    await deps.sessions.touch(session.id, new Date(now), idle);
    session = { ...session, last_used_at: iso(now), idle_expires_at: idle };
  }
  const ends = Math.min(Date.parse(session.idle_expires_at), Date.parse(session.expires_at));
  return { user: found.user, session_id: session.id, scopes: scopesOf(found.user), expires_at: iso(ends) };
}

/** The caller's live sessions, newest first. */
export async function listOwnSessions(deps: Pick<AccountsDeps, 'sessions' | 'clock'>, caller: Caller): Promise<SessionRecord[]> {
  return deps.sessions.listForUser(requireUser(caller), new Date(deps.clock()));
}

/** Ends one of the caller's own sessions; another user's answers 404 as a missing one. */
export async function revokeOwnSession(deps: Pick<AccountsDeps, 'sessions'>, caller: Caller, id: string): Promise<void> {
  const userId = requireUser(caller);
  if (!SESSION_ID_SHAPE.test(id) || !(await deps.sessions.remove(id, userId))) throw notFound('Session not found');
}

/** Signs out the session that makes the call. */
export async function revokeCurrentSession(deps: Pick<AccountsDeps, 'sessions'>, caller: Caller, currentSessionId: string | undefined): Promise<void> {
  if (!currentSessionId) throw validation('This request was not made with a session; DELETE /api/user/sessions/current signs out a session');
  await revokeOwnSession(deps, caller, currentSessionId);
}

/**
 * PUT /api/user/password: needs the current password (403 when wrong, counted as a failed
 * sign-in, so a stolen session cannot guess it faster than the sign-in form), and ends every
 * other session of the user; the one making the call stays signed in.
 */
export async function changeOwnPassword(deps: SessionDeps, caller: Caller, currentSessionId: string | undefined, raw: unknown, client: ClientOrigin): Promise<Throttled | undefined> {
  const userId = requireUser(caller);
  const body = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>;
  const current = givenPassword(body.current_password, 'current_password');
  const password = checkPassword(body.password);
  const keys = failureKeys(caller.username, client);
  const throttledFor = await throttled(deps, keys);
  if (throttledFor) return throttledFor;
  const found = await deps.sessions.credentialsOf(caller.username);
  if (!found || found.user.id !== userId) throw unauthenticated();
  if (!found.password_hash) throw forbidden(NO_PASSWORD_SET);
  if (!(await deps.hasher.verify(found.password_hash, current))) {
    await deps.sessions.recordFailures(keys, new Date(deps.clock()));
    throw forbidden(WRONG_CURRENT_PASSWORD);
  }
  await deps.sessions.setPassword(userId, await deps.hasher.hash(password), currentSessionId ?? null);
  return undefined;
}

/** PUT /api/admin/users/{username}/password: sets it and ends all the user's sessions (an admin
 *  resets a password when an account may be in the wrong hands). */
export async function setUserPassword(deps: Pick<AccountsDeps, 'sessions' | 'hasher'>, caller: Caller, username: string, raw: unknown): Promise<void> {
  requireSiteAdmin(caller);
  const password = checkPassword(raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>).password : undefined);
  const found = NAME_SHAPE.test(username) ? await deps.sessions.credentialsOf(username) : null;
  if (!found) throw notFound('User not found');
  if (!(await deps.sessions.setPassword(found.user.id, await deps.hasher.hash(password), null))) throw notFound('User not found');
}

/** The hash POST /api/admin/users stores with a new user. */
export function hashNewPassword(deps: Pick<AccountsDeps, 'hasher'>, password: string): Promise<string> {
  return deps.hasher.hash(password);
}

/** Suspension ends every session of the user (services/accounts/README.md#users-and-tokens). */
export function endAllSessions(deps: { sessions: Pick<SessionStore, 'removeAllOf'> }, userId: string): Promise<void> {
  return deps.sessions.removeAllOf(userId);
}

async function issue(deps: SessionDeps, userId: string, client: ClientOrigin): Promise<IssuedSession> {
  const now = deps.clock();
  const secret = SESSION_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  const expires = now + deps.sessionSettings.maxAgeMs;
  const session = await deps.sessions.insert({
    id: randomUUID(),
    user_id: userId,
    secret_hash: hashSecret(secret),
    created_at: iso(now),
    last_used_at: iso(now),
    idle_expires_at: iso(Math.min(now + deps.sessionSettings.idleTimeoutMs, expires)),
    expires_at: iso(expires),
    user_agent: client.user_agent,
    address: client.address,
  });
  return { id: session.id, secret, expires_at: session.expires_at, idle_expires_at: session.idle_expires_at };
}

function failureKeys(username: string, client: ClientOrigin): { kind: 'account' | 'address'; key: string }[] {
  const keys: { kind: 'account' | 'address'; key: string }[] = [{ kind: 'account', key: username.toLowerCase() }];
  if (client.address) keys.push({ kind: 'address', key: client.address });
  return keys;
}

async function throttled(deps: SessionDeps, keys: { kind: 'account' | 'address'; key: string }[]): Promise<Throttled | undefined> {
  const now = deps.clock();
  const settings = deps.sessionSettings;
  const since = now - settings.failureWindowMs;
  let waitMs = 0;
  for (const key of keys) {
    const limit = key.kind === 'account' ? settings.failuresPerAccount : settings.failuresPerAddress;
    if (limit <= 0) continue;
    const { count, oldest } = await deps.sessions.failures(key.kind, key.key, new Date(since));
    if (count >= limit && oldest) waitMs = Math.max(waitMs, Date.parse(oldest) + settings.failureWindowMs - now);
  }
  return waitMs > 0 ? { throttled: true, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) } : undefined;
}

function givenString(value: unknown, field: string): string {
  if (value === undefined || value === null || value === '') throw validation(`${field} is required`);
  if (typeof value !== 'string') throw validation(`${field} must be a string`);
  if (value.length > 1000) throw validation(`${field} must be at most 1000 characters`);
  return value;
}

function requireUser(caller: Caller): string {
  if (!caller.user_id) throw validation('The bootstrap admin has no user record and no sessions or password');
  return caller.user_id;
}

export function isThrottled(value: unknown): value is Throttled {
  return typeof value === 'object' && value !== null && (value as Throttled).throttled === true;
}
