import { createAccountsClient, type AccountsServiceClient, type accounts } from '@githost/protos';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { Permission, Principal, RepoContext } from '@githost/identity';

/** What the gateway asks accounts; an interface so the access rules are testable alone. */
export interface AccountsGateway {
  /** The token's principal; rejects with `unauthenticated` for an unknown or revoked token. */
  authenticate(token: string, requestId: string): Promise<Principal>;
  /** The repository and the caller's permission; rejects with `not_found` when there is none.
   *  `fresh` skips any cache. */
  authorize(principal: Principal | null, owner: string, name: string, requestId: string, fresh?: boolean): Promise<RepoContext>;
  /** True when the accounts server answers (readiness). */
  reachable(): Promise<boolean>;
  close(): void;
}

const PERMISSIONS: readonly Permission[] = ['none', 'read', 'write', 'admin'];

/** The bootstrap admin (GITHOST_ADMIN_TOKEN) has no user record (CONTRACT §2). */
const BOOTSTRAP_PRINCIPAL: Principal = { user_id: null, username: 'admin', email: '', is_admin: true };

export function principalOf(res: accounts.AuthenticateResponse__Output): Principal {
  if (res.bootstrap_admin || !res.user) return BOOTSTRAP_PRINCIPAL;
  return { user_id: res.user.id, username: res.user.username, email: res.user.email, is_admin: res.user.is_admin };
}

export function repoContextOf(res: accounts.AuthorizeResponse__Output): RepoContext {
  const r = res.repository;
  if (!r) throw new Error('accounts Authorize answered without a repository');
  const permission = PERMISSIONS.includes(res.permission as Permission) ? (res.permission as Permission) : 'none';
  return {
    id: r.id,
    owner: r.owner,
    name: r.name,
    default_branch: r.default_branch,
    private: r.private,
    shard: r.shard || 'default',
    permission,
    owner_id: r.owner_id,
  };
}

const TIMEOUT_MS = 5_000;

export function grpcAccountsGateway(address: string, metrics?: GrpcMetrics): AccountsGateway {
  const client: AccountsServiceClient = createAccountsClient(address);
  return {
    async authenticate(token, requestId) {
      const res = await callUnary<accounts.AuthenticateRequest, accounts.AuthenticateResponse__Output>(client, client.Authenticate, { token }, { requestId, timeoutMs: TIMEOUT_MS, metrics });
      return principalOf(res);
    },
    async authorize(principal, owner, name, requestId) {
      const req = { user_id: principal?.user_id ?? '', bootstrap_admin: principal !== null && principal.user_id === null, owner, name };
      return repoContextOf(await callUnary<accounts.AuthorizeRequest, accounts.AuthorizeResponse__Output>(client, client.Authorize, req, { requestId, timeoutMs: TIMEOUT_MS, metrics }));
    },
    reachable: () => new Promise((resolve) => client.waitForReady(Date.now() + 1_000, (err) => resolve(!err))),
    close: () => client.close(),
  };
}
