import type { accounts } from '@githost/protos';
import { AppError } from '@githost/errors';
import type { AccountsDeps } from '../domain/deps.js';
import { authenticateSession, SESSION_PREFIX } from '../domain/sessions.js';
import { authenticateToken } from '../domain/tokens.js';
import type { AccountsMetrics } from '../metrics.js';
import { userMessage } from './messages.js';

/** Authenticate: the principal with the token's scopes and expiry; UNAUTHENTICATED
 *  `Authentication required` for unknown, revoked or expired tokens and suspended users. A
 *  session secret (services/accounts/README.md#sessions) answers as a token with all the user's scopes, expiring
 *  when the session would, and names its session. */
export function authenticate(deps: AccountsDeps, metrics: AccountsMetrics) {
  return async (req: accounts.AuthenticateRequest__Output): Promise<accounts.AuthenticateResponse> => {
    try {
      if (req.token.startsWith(SESSION_PREFIX)) {
        const session = await authenticateSession(deps, req.token);
        metrics.authentications.inc({ result: 'session' });
        return { user: userMessage(session.user), bootstrap_admin: false, scopes: session.scopes, expires_at: session.expires_at, session_id: session.session_id };
      }
      const result = await authenticateToken(deps, req.token);
      metrics.authentications.inc({ result: result.kind });
      const token = { scopes: result.scopes, expires_at: result.expires_at ?? '' };
      return result.kind === 'bootstrap_admin' ? { bootstrap_admin: true, ...token } : { user: userMessage(result.user), bootstrap_admin: false, ...token };
    } catch (err) {
      if (err instanceof AppError && err.kind === 'unauthenticated') metrics.authentications.inc({ result: 'rejected' });
      throw err;
    }
  };
}
