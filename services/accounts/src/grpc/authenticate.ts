import type { accounts } from '@githost/protos';
import { AppError } from '@githost/errors';
import type { TokenService } from '../domain/tokens.js';
import type { AccountsMetrics } from '../metrics.js';
import { userMessage } from './messages.js';

/** Authenticate: UNAUTHENTICATED `Authentication required` for unknown or revoked tokens. */
export function authenticate(tokens: TokenService, metrics: AccountsMetrics) {
  return async (req: accounts.AuthenticateRequest__Output): Promise<accounts.AuthenticateResponse> => {
    try {
      const result = await tokens.authenticate(req.token);
      metrics.authentications.inc({ result: result.kind });
      return result.kind === 'bootstrap_admin' ? { bootstrap_admin: true } : { user: userMessage(result.user), bootstrap_admin: false };
    } catch (err) {
      if (err instanceof AppError && err.kind === 'unauthenticated') metrics.authentications.inc({ result: 'rejected' });
      throw err;
    }
  };
}
