import { createAccountsClient, type AccountsServiceClient, type accounts } from '@githost/protos';
import { callUnary, waitForReady, type GrpcMetrics } from '@githost/grpc';
import { repoFieldsOf, type Permission, type Principal, type RepoContext } from '@githost/identity';

/** What a token may do (services/accounts/README.md#token-scopes); each includes the ones before it. */
export type TokenScope = 'read' | 'write' | 'admin';
const SCOPES: readonly TokenScope[] = ['read', 'write', 'admin'];

/** Who a token is and what it may do. */
export interface Authentication {
  /** What the gateway signs: `is_admin` is true only for a site admin whose token has the admin scope. */
  principal: Principal;
  scopes: readonly TokenScope[];
  /** Unix milliseconds when the token stops working; null when never. */
  expiresAt: number | null;
  /** The most this credential allows on any repository, whatever the principal's permission
   *  (an LFS grant made for a deploy key). */
  maxPermission?: Permission;
}

/** What the gateway asks accounts; an interface so the access rules are testable alone. */
export interface AccountsGateway {
  /** The token's principal and scopes; rejects with `unauthenticated` for an unknown, revoked or
   *  expired token or a suspended user. */
  authenticate(token: string, requestId: string): Promise<Authentication>;
  /** The repository and the caller's permission; rejects with `not_found` when there is none,
   *  `unauthenticated` for a suspended user. A principal without `is_admin` is decided as for
   *  any user, even when the user record says site admin (the token lacks the admin scope).
   *  `fresh` skips any cache. */
  authorize(principal: Principal | null, owner: string, name: string, requestId: string, fresh?: boolean): Promise<RepoContext>;
  /** True when the accounts server answers (readiness). */
  reachable(): Promise<boolean>;
  close(): void;
}

const PERMISSIONS: readonly Permission[] = ['none', 'read', 'write', 'admin'];

/** The bootstrap admin (GITHOST_ADMIN_TOKEN) has no user record (CONTRACT §2). */
const BOOTSTRAP_PRINCIPAL: Principal = { user_id: null, username: 'admin', email: '', is_admin: true };

/**
 * Accounts' answer as the gateway uses it. Unknown scope names are dropped and no scopes at all
 * is read only: an answer that says nothing grants nothing beyond reading.
 */
export function authenticationOf(res: accounts.AuthenticateResponse__Output): Authentication {
  const scopes = SCOPES.filter((s) => (res.scopes ?? []).includes(s));
  const expires = res.expires_at ? Date.parse(res.expires_at) : NaN;
  const expiresAt = Number.isNaN(expires) ? null : expires;
  if (res.bootstrap_admin || !res.user) return { principal: BOOTSTRAP_PRINCIPAL, scopes: SCOPES, expiresAt: null };
  const u = res.user;
  return {
    principal: { user_id: u.id, username: u.username, email: u.email, is_admin: u.is_admin && scopes.includes('admin'), ...(res.session_id ? { session_id: res.session_id } : {}) },
    scopes: scopes.length > 0 ? scopes : ['read'],
    expiresAt,
  };
}

export function repoContextOf(res: accounts.AuthorizeResponse__Output): RepoContext {
  const r = res.repository;
  if (!r) throw new Error('accounts Authorize answered without a repository');
  const permission = PERMISSIONS.includes(res.permission as Permission) ? (res.permission as Permission) : 'none';
  return { ...repoFieldsOf({ ...r, shard: r.shard || 'default' }), permission };
}

const TIMEOUT_MS = 5_000;

export function grpcAccountsGateway(address: string, internalSecret: string, metrics?: GrpcMetrics): AccountsGateway {
  const client: AccountsServiceClient = createAccountsClient(address, internalSecret);
  return {
    async authenticate(token, requestId) {
      const res = await callUnary<accounts.AuthenticateRequest, accounts.AuthenticateResponse__Output>(client, client.Authenticate, { token }, { requestId, timeoutMs: TIMEOUT_MS, metrics });
      return authenticationOf(res);
    },
    async authorize(principal, owner, name, requestId) {
      const req = {
        user_id: principal?.user_id ?? '',
        bootstrap_admin: principal !== null && principal.user_id === null,
        without_site_admin: principal !== null && !principal.is_admin,
        owner,
        name,
      };
      return repoContextOf(await callUnary<accounts.AuthorizeRequest, accounts.AuthorizeResponse__Output>(client, client.Authorize, req, { requestId, timeoutMs: TIMEOUT_MS, metrics }));
    },
    reachable: () => waitForReady(client, 1_000),
    close: () => client.close(),
  };
}
