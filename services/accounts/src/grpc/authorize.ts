import type { accounts } from '@githost/protos';
import { AppError } from '@githost/errors';
import type { AccountsDeps } from '../domain/deps.js';
import { authorizeCaller } from '../domain/repositories.js';
import type { AccountsMetrics } from '../metrics.js';
import { repositoryMessage } from './messages.js';

/** Authorize: NOT_FOUND `Repository not found` when owner/name does not exist; UNAUTHENTICATED
 *  for a suspended user. */
export function authorize(deps: AccountsDeps, metrics: AccountsMetrics) {
  return async (req: accounts.AuthorizeRequest__Output): Promise<accounts.AuthorizeResponse> => {
    try {
      const { repository, permission } = await authorizeCaller(deps, req.owner, req.name, { user_id: req.user_id, bootstrap_admin: req.bootstrap_admin, without_site_admin: req.without_site_admin });
      metrics.authorizations.inc({ permission });
      return { repository: repositoryMessage(repository), permission };
    } catch (err) {
      if (err instanceof AppError && err.kind === 'not_found') metrics.authorizations.inc({ permission: 'not_found' });
      if (err instanceof AppError && err.kind === 'unauthenticated') metrics.authorizations.inc({ permission: 'suspended' });
      throw err;
    }
  };
}
