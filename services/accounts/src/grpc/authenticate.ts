import type { accounts } from '@githost/protos';
import type { TokenService } from '../domain/tokens.js';
import { userMessage } from './messages.js';

/** Authenticate: UNAUTHENTICATED `Authentication required` for unknown or revoked tokens. */
export function authenticate(tokens: TokenService) {
  return async (req: accounts.AuthenticateRequest__Output): Promise<accounts.AuthenticateResponse> => {
    const result = await tokens.authenticate(req.token);
    return result.kind === 'bootstrap_admin' ? { bootstrap_admin: true } : { user: userMessage(result.user), bootstrap_admin: false };
  };
}
