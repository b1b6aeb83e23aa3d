import client from 'prom-client';
import { grpcClientMetrics, grpcServerMetrics, type GrpcMetrics } from '@githost/grpc';

export interface AccountsMetrics {
  /** Authenticate outcomes: `user`, `bootstrap_admin`, `session`, `rejected`. A rise in rejections is a credential-stuffing signal. */
  authentications: client.Counter<'result'>;
  /** Authorize outcomes by permission, `not_found` for unknown repositories, `suspended` for refused callers. */
  authorizations: client.Counter<'permission'>;
  /** POST /api/sessions outcomes: `signed_in`, `refused` (401), `throttled` (429). A rise in
   *  refusals from many addresses is password spraying; in throttled, an account under attack. */
  signIns: client.Counter<'result'>;
  /** AccountsService calls answered, by method and code. */
  grpcServer: GrpcMetrics;
  /** Calls to git-storage, by method and code. */
  grpcClient: GrpcMetrics;
}

export function createMetrics(registry: client.Registry): AccountsMetrics {
  return {
    authentications: new client.Counter({ name: 'githost_accounts_authentications_total', help: 'Authenticate calls by result', labelNames: ['result'], registers: [registry] }),
    authorizations: new client.Counter({ name: 'githost_accounts_authorizations_total', help: 'Authorize calls by resulting permission', labelNames: ['permission'], registers: [registry] }),
    signIns: new client.Counter({ name: 'githost_accounts_sign_ins_total', help: 'Password sign-ins by result', labelNames: ['result'], registers: [registry] }),
    grpcServer: grpcServerMetrics(registry, 'accounts'),
    grpcClient: grpcClientMetrics(registry, 'accounts'),
  };
}
