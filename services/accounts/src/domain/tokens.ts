import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { notFound, unauthenticated, validation } from '@githost/errors';
import type { TokenStore } from './ports.js';
import type { Caller, IssuedToken, User } from './types.js';

/** Prefix so leaked tokens are recognisable by secret scanners. */
export const TOKEN_PREFIX = 'ghs_';
/** CONTRACT §3: tokens are random, at least 32 bytes. */
const TOKEN_BYTES = 32;
/** Longer input cannot be one of ours; refuse it before hashing. */
const MAX_TOKEN_LENGTH = 512;
/** Writing last_used_at on every request would turn each read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Tokens are stored only as this hash (CONTRACT §3): a database leak reveals no credential. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison; hashing first makes the lengths equal so length leaks nothing either. */
export function sameSecret(given: string, secret: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(secret, 'utf8').digest();
  return timingSafeEqual(a, b);
}

export type Authenticated = { kind: 'user'; user: User } | { kind: 'bootstrap_admin' };

export class TokenService {
  constructor(
    private readonly store: TokenStore,
    private readonly adminToken: string | undefined,
  ) {}

  async issue(userId: string, name: string | null): Promise<IssuedToken> {
    const token = generateToken();
    const record = await this.store.insert({ id: randomUUID(), user_id: userId, name, token_hash: hashToken(token) });
    return { id: record.id, name: record.name, token, created_at: record.created_at };
  }

  /** Unknown, revoked and malformed tokens all answer the same `Authentication required`. */
  async authenticate(token: string): Promise<Authenticated> {
    if (!token || token.length > MAX_TOKEN_LENGTH) throw unauthenticated();
    if (this.adminToken && sameSecret(token, this.adminToken)) return { kind: 'bootstrap_admin' };
    const found = await this.store.findActive(hashToken(token));
    if (!found) throw unauthenticated();
    await this.store.touch(found.token.id, TOUCH_INTERVAL_MS);
    return { kind: 'user', user: found.user };
  }

  /** A user revokes their own tokens; a site admin any token. */
  async revoke(caller: Caller, tokenId: string): Promise<void> {
    const revoked = await this.store.revoke(tokenId, caller.is_admin ? null : caller.user_id);
    if (!revoked) throw notFound('Token not found');
  }

  async list(caller: Caller) {
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    return this.store.listForUser(caller.user_id);
  }
}

export const NO_USER_RECORD = 'The bootstrap admin has no user record; create a user with POST /api/admin/users and use its token';
