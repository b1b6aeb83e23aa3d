import { createHash, createHmac, timingSafeEqual, type JsonWebKey } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Database } from '@githost/db';
import type { OAuthApplicationStore } from '../domain/oauth-applications.js';
import { OAUTH_SCOPES } from '../domain/oauth-scopes.js';
import type { UserStore } from '../domain/ports.js';
import { loadOidcProvider } from './load-oidc-provider.js';
import { recordAdapterFactory } from './record-adapter.js';

/**
 * githost as an OAuth2 and OpenID Connect provider (docs/decisions/oauth2-provider.md): the
 * certified `oidc-provider`, at Gitea's paths, its records on accounts' database, its clients the
 * applications users register, its accounts githost's users. Sign-in and consent happen on the
 * web's consent page (oauth/consent.ts); the provider only drives the protocol.
 */
export const OAUTH_ROUTES = {
  authorization: '/login/oauth/authorize',
  token: '/login/oauth/access_token',
  userinfo: '/login/oauth/userinfo',
  jwks: '/login/oauth/keys',
  revocation: '/login/oauth/revoke',
} as const;

/** Where the provider sends the browser to sign in and approve: a page of the web. */
export const consentPagePath = (uid: string) => `/-/oauth/authorize/${encodeURIComponent(uid)}`;

/** The paths the provider answers (the gateway forwards exactly these to accounts). */
export function isProviderPath(path: string): boolean {
  return path === '/.well-known/openid-configuration' || path.startsWith('/login/oauth/');
}

/** Lifetimes in seconds (docs/decisions/oauth2-provider.md#lifetimes), Gitea's where it has one. */
export const OAUTH_TTLS = {
  AccessToken: 3600,
  AuthorizationCode: 600,
  IdToken: 3600,
  RefreshToken: 30 * 24 * 3600,
  Grant: 30 * 24 * 3600,
  Interaction: 3600,
  Session: 14 * 24 * 3600,
} as const;

export interface OAuthProviderDeps {
  /** PUBLIC_URL: the issuer, and the base of every URL discovery names. */
  issuer: string;
  db: Database;
  applications: OAuthApplicationStore;
  users: UserStore;
  signingKeys: JsonWebKey[];
  /** GITHOST_INTERNAL_SECRET: the provider's cookie keys are derived from it. */
  internalSecret: string;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export async function createOAuthProvider(deps: OAuthProviderDeps): Promise<Provider> {
  const { default: OidcProvider, interactionPolicy } = await loadOidcProvider();
  const policy = interactionPolicy.base();
  // Every authorization passes the web's consent page, so it is always the person signed in to
  // the web who approves, never a provider session that outlived their sign-out.
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('githost_confirmation', 'The signed-in user confirms every authorization', (ctx) =>
      (ctx as KoaContextWithOIDC).oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );

  const configuration: Configuration = {
    adapter: recordAdapterFactory(deps.db, async (clientId) => {
      const app = await deps.applications.byClientId(clientId);
      if (!app) return undefined;
      return {
        client_id: app.client_id,
        // Only the secret's hash is kept; compareClientSecret below hashes what the client sends.
        ...(app.confidential && app.client_secret_hash ? { client_secret: app.client_secret_hash } : {}),
        client_name: app.name,
        redirect_uris: app.redirect_uris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: app.confidential ? 'client_secret_basic' : 'none',
        id_token_signed_response_alg: 'RS256',
      };
    }),
    async findAccount(_ctx, sub) {
      const [user] = await deps.users.byIds([sub]);
      if (!user || user.suspended_at) return undefined;
      return {
        accountId: user.id,
        claims: () => ({ sub: user.id, name: user.username, preferred_username: user.username, email: user.email, profile: `${deps.issuer}/${encodeURIComponent(user.username)}` }),
      };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'profile'], email: ['email'] },
    scopes: [...OAUTH_SCOPES],
    routes: OAUTH_ROUTES,
    jwks: { keys: deps.signingKeys as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: [createHmac('sha256', deps.internalSecret).update('githost-oauth-cookies').digest('base64url')],
      names: { session: 'githost_oauth_session', interaction: 'githost_oauth_interaction', resume: 'githost_oauth_resume' },
      long: { httpOnly: true, sameSite: 'lax', secure: deps.issuer.startsWith('https:') },
      short: { httpOnly: true, sameSite: 'lax', secure: deps.issuer.startsWith('https:') },
    },
    features: {
      devInteractions: { enabled: false },
      // RFC 7009 §2.1: a client revokes only tokens issued to it; another's is left alone (200, as for an unknown token).
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: false },
    },
    // RFC 9700 §2.1.1: PKCE for every public client (S256 only, oidc-provider's default).
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    // As Gitea: every code exchange gives a refresh token, and each use rotates it.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: { ...OAUTH_TTLS },
    interactions: { url: (_ctx, interaction) => consentPagePath(interaction.uid), policy },
    // Errors the browser sees (a wrong redirect URI) as a plain page; no third-party font.
    async renderError(ctx, out) {
      ctx.type = 'html';
      const esc = (v: unknown) => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head><body><h1>Sign-in failed</h1><p>${esc(out.error)}: ${esc(out.error_description ?? '')}</p></body></html>`;
    },
  };

  const provider = new OidcProvider(deps.issuer, configuration);
  // The gateway in front sets X-Forwarded-Proto and Host (docs/architecture.md).
  provider.proxy = true;
  // Client secrets are kept as their SHA-256 (like tokens), so the one the client sends is hashed
  // before the constant-time comparison; no HS* algorithm is enabled that would need the secret itself.
  provider.Client.prototype.compareClientSecret = function compare(this: { clientSecret?: string }, actual: string): boolean {
    if (!this.clientSecret) return false;
    const expected = Buffer.from(this.clientSecret, 'hex');
    const given = sha256(actual);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  return provider;
}

/** The provider as a node request handler, for the paths `isProviderPath` accepts. */
export function providerHandler(provider: Provider): (req: IncomingMessage, res: ServerResponse) => void {
  return provider.callback() as (req: IncomingMessage, res: ServerResponse) => void;
}
