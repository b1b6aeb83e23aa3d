import client from 'prom-client';

export interface AccountsMetrics {
  /** Authenticate outcomes: `user`, `bootstrap_admin`, `rejected`. A rise in rejections is a credential-stuffing signal. */
  authentications: client.Counter<'result'>;
  /** Authorize outcomes by permission, `not_found` for unknown repositories. */
  authorizations: client.Counter<'permission'>;
}

export function createMetrics(registry: client.Registry): AccountsMetrics {
  return {
    authentications: new client.Counter({ name: 'githost_accounts_authentications_total', help: 'Authenticate calls by result', labelNames: ['result'], registers: [registry] }),
    authorizations: new client.Counter({ name: 'githost_accounts_authorizations_total', help: 'Authorize calls by resulting permission', labelNames: ['permission'], registers: [registry] }),
  };
}
