import type Provider from 'oidc-provider';
import type { OAuthAccessTokenLookup } from '../domain/tokens.js';

/**
 * An OAuth2 access token as `Authenticate` sees it (docs/decisions/oauth2-provider.md#tokens):
 * looked up in the provider's own store on every call (the gateway's token cache aside), so
 * expiry holds and a revocation, a revoked grant or a deleted application ends it at once.
 */
export function oauthAccessTokenLookup(provider: Provider): OAuthAccessTokenLookup {
  return {
    async find(value) {
      const token = await provider.AccessToken.find(value);
      if (!token || !token.accountId || token.isExpired) return null;
      return { account_id: token.accountId, scopes: [...token.scopes], expires_at: new Date((token.exp ?? 0) * 1000).toISOString() };
    },
  };
}
