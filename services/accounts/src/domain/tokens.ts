import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { notFound, unauthenticated, validation } from '@githost/errors';
import type { AccountsDeps } from './deps.js';
import type { TokenRecord } from './ports.js';
import { githostScopesOf } from './oauth-scopes.js';
import { grantScopes, TOKEN_SCOPES } from './scopes.js';
import type { CreateTokenInput } from './token-input.js';
import type { Caller, IssuedToken, TokenScope, User } from './types.js';

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

export type Authenticated =
  | { kind: 'user'; user: User; scopes: TokenScope[]; expires_at: string | null }
  | { kind: 'bootstrap_admin'; scopes: TokenScope[]; expires_at: null };

type TokenDeps = Pick<AccountsDeps, 'tokens'>;

/** An access token the OAuth2 provider issued (oauth/access-tokens.ts): whose, the scopes granted
 *  to the application, and when it expires; null for an unknown, expired or revoked one. */
export interface OAuthAccessTokenLookup {
  find(value: string): Promise<{ account_id: string; scopes: string[]; expires_at: string } | null>;
}

/**
 * A new token for `holder` (services/accounts/README.md#token-scopes): the requested scopes, or all the holder
 * has; `admin` only when the holder is a site admin, as the request's principal says (so a
 * token without the admin scope cannot mint one with it).
 */
export async function issueToken(deps: TokenDeps, holder: { id: string; is_admin: boolean }, input: CreateTokenInput): Promise<IssuedToken> {
  const scopes = grantScopes(holder, input.scopes);
  const token = generateToken();
  const record = await deps.tokens.insert({ id: randomUUID(), user_id: holder.id, name: input.name, token_hash: hashToken(token), scopes, expires_at: input.expires_at });
  return { id: record.id, name: record.name, token, scopes: record.scopes, expires_at: record.expires_at, created_at: record.created_at };
}

/** Unknown, revoked, expired and malformed tokens, and those of suspended users, all answer
 *  the same `Authentication required`: the answer tells a stolen token's holder nothing. */
export async function authenticateToken(deps: Pick<AccountsDeps, 'tokens' | 'adminToken'> & Partial<Pick<AccountsDeps, 'users' | 'oauthAccessTokens'>>, token: string): Promise<Authenticated> {
  if (!token || token.length > MAX_TOKEN_LENGTH) throw unauthenticated();
  if (deps.adminToken && sameSecret(token, deps.adminToken)) return { kind: 'bootstrap_admin', scopes: [...TOKEN_SCOPES], expires_at: null };
  const found = await deps.tokens.findActive(hashToken(token));
  if (!found) {
    if (!token.startsWith(TOKEN_PREFIX) && deps.oauthAccessTokens && deps.users) return authenticateOAuthAccessToken({ users: deps.users }, deps.oauthAccessTokens, token);
    throw unauthenticated();
  }
  await deps.tokens.touch(found.token.id, TOUCH_INTERVAL_MS);
  return { kind: 'user', user: found.user, scopes: found.token.scopes, expires_at: found.token.expires_at };
}

/**
 * docs/decisions/oauth2-provider.md#tokens: an application's access token acts for its user
 * with the githost scopes its grant maps to (never `admin`); one granted sign-in scopes only
 * (`openid profile email`) opens nothing here but the provider's userinfo.
 */
async function authenticateOAuthAccessToken(deps: Pick<AccountsDeps, 'users'>, lookup: OAuthAccessTokenLookup, token: string): Promise<Authenticated> {
  const found = await lookup.find(token);
  const scopes = found ? githostScopesOf(found.scopes) : [];
  if (!found || scopes.length === 0) throw unauthenticated();
  const [user] = await deps.users.byIds([found.account_id]);
  if (!user || user.suspended_at) throw unauthenticated();
  return { kind: 'user', user, scopes, expires_at: found.expires_at };
}

/** A user revokes their own tokens; a site admin any token. */
export async function revokeToken(deps: TokenDeps, caller: Caller, tokenId: string): Promise<void> {
  const revoked = await deps.tokens.revoke(tokenId, caller.is_admin ? null : caller.user_id);
  if (!revoked) throw notFound('Token not found');
}

export async function listOwnTokens(deps: TokenDeps, caller: Caller): Promise<TokenRecord[]> {
  if (!caller.user_id) throw validation(NO_USER_RECORD);
  return deps.tokens.listForUser(caller.user_id);
}

export const NO_USER_RECORD = 'The bootstrap admin has no user record; create a user with POST /api/admin/users and use its token';
