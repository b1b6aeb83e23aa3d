import type Provider from 'oidc-provider';
import type { Database } from '@githost/db';
import { notFound } from '@githost/errors';
import type { OAuthApplicationStore } from '../domain/oauth-applications.js';
import { OAUTH_SCOPES } from '../domain/oauth-scopes.js';
import { grantIds, liveGrants, liveGrantsOfAccount, revokeGrant } from './record-adapter.js';

/**
 * The consent step (docs/decisions/oauth2-provider.md#consent): oidc-provider stores the
 * interaction, the web's consent page shows it to the person signed in and posts their answer
 * here, and the browser is sent back to the provider to finish. The interaction is looked up by
 * its id; only the browser that started it holds the provider's resume cookie, so approving
 * another browser's interaction completes nothing for anyone but that browser's own client.
 */
export interface ConsentRequest {
  uid: string;
  client: { client_id: string; name: string };
  /** The scopes asked for that githost grants, in the order they were asked. */
  scopes: string[];
  redirect_uri: string;
  /** The user granted this application every scope asked for already (a live grant): the web
   *  answers for them without asking again (docs/decisions/oauth2-provider.md#consent). */
  remembered: boolean;
}

const INTERACTION_NOT_FOUND = 'Authorization request not found or expired';
const SUPPORTED = new Set<string>(OAUTH_SCOPES);

function requestedScopes(scope: unknown): string[] {
  return typeof scope === 'string' ? [...new Set(scope.split(' ').filter((s) => SUPPORTED.has(s)))] : [];
}

export async function consentRequest(provider: Provider, applications: OAuthApplicationStore, db: Database, uid: string, accountId: string): Promise<ConsentRequest> {
  const interaction = await provider.Interaction.find(uid);
  if (!interaction || interaction.result) throw notFound(INTERACTION_NOT_FOUND);
  const clientId = String(interaction.params.client_id ?? '');
  const app = await applications.byClientId(clientId);
  if (!app) throw notFound(INTERACTION_NOT_FOUND);
  const scopes = requestedScopes(interaction.params.scope);
  const granted = await grantedScopes(db, accountId, clientId);
  const held = new Set(granted.flatMap((g) => g.scopes));
  const remembered = granted.length > 0 && scopes.every((s) => held.has(s));
  return { uid, client: { client_id: app.client_id, name: app.name }, scopes, redirect_uri: String(interaction.params.redirect_uri ?? ''), remembered };
}

/** The user's live grants to the application with the scopes githost grants: what they approved
 *  before and have not revoked (Settings → Applications) nor let expire. */
async function grantedScopes(db: Database, accountId: string, clientId: string): Promise<{ id: string; scopes: string[] }[]> {
  return (await liveGrants(db, accountId, clientId)).map((g) => ({ id: g.id, scopes: requestedScopes(g.payload.openid?.scope) }));
}

/**
 * Records the person's answer and returns where the browser goes next (the provider's resume
 * URL, which redirects to the client with a code or with `access_denied`).
 */
export async function answerConsent(provider: Provider, db: Database, uid: string, accountId: string, approve: boolean): Promise<string> {
  const interaction = await provider.Interaction.find(uid);
  if (!interaction || interaction.result) throw notFound(INTERACTION_NOT_FOUND);
  const ttl = Math.max(1, (interaction.exp ?? 0) - Math.floor(Date.now() / 1000));
  if (!approve) {
    interaction.result = { error: 'access_denied', error_description: 'The user denied the request' };
    await interaction.save(ttl);
    return interaction.returnTo;
  }
  const clientId = String(interaction.params.client_id);
  // One grant per user and application: approving again adds the newly asked scopes to it, and
  // saving it again keeps it (so the remembered consent) for another grant lifetime.
  const known = interaction.grantId ?? (await liveGrants(db, accountId, clientId))[0]?.id;
  const existing = known ? await provider.Grant.find(known) : undefined;
  const grant = existing && existing.accountId === accountId && existing.clientId === clientId ? existing : new provider.Grant({ accountId, clientId });
  const scopes = requestedScopes(interaction.params.scope);
  if (scopes.length > 0) grant.addOIDCScope(scopes.join(' '));
  const grantId = await grant.save();
  interaction.result = { login: { accountId }, consent: { grantId } };
  await interaction.save(ttl);
  return interaction.returnTo;
}

/** An application the user authorised: its grant's scopes and when it was granted. */
export interface AuthorizedApplication {
  client_id: string;
  name: string;
  scopes: string[];
  granted_at: string;
}

/** The applications the user has live grants for, newest grant first, one line per application. */
export async function authorizedApplications(db: Database, accountId: string): Promise<AuthorizedApplication[]> {
  const byClient = new Map<string, AuthorizedApplication & { iat: number }>();
  for (const grant of await liveGrantsOfAccount(db, accountId)) {
    const seen = byClient.get(grant.client_id);
    const scopes = new Set([...(seen?.scopes ?? []), ...requestedScopes(grant.payload.openid?.scope)]);
    const iat = Math.max(grant.payload.iat ?? 0, seen?.iat ?? 0);
    byClient.set(grant.client_id, { client_id: grant.client_id, name: grant.application_name, scopes: [...scopes], iat, granted_at: new Date(iat * 1000).toISOString() });
  }
  return [...byClient.values()].sort((a, b) => b.iat - a.iat).map(({ iat: _iat, ...app }) => app);
}

/** Revokes every grant the user gave the application, with its codes and tokens, at once. */
export async function revokeAuthorization(db: Database, accountId: string, clientId: string): Promise<void> {
  const ids = await grantIds(db, accountId, clientId);
  if (ids.length === 0) throw notFound('Authorized application not found');
  await db.transaction(async (tx) => {
    for (const id of ids) await revokeGrant(tx, id);
  });
}
