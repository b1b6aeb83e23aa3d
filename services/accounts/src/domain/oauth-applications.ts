import { randomBytes, randomUUID } from 'node:crypto';
import { notFound, validation } from '@githost/errors';
import type { AccountsDeps } from './deps.js';
import { hashToken, NO_USER_RECORD } from './tokens.js';
import type { Caller } from './types.js';

/*
 * docs/decisions/oauth2-provider.md#applications: OAuth2 applications a user registers, with
 * Gitea's API shape (`/api/v1/user/applications/oauth2`). The client secret is shown once, when
 * the application is created, and kept only as its SHA-256 like a token.
 */

export interface OAuthApplication {
  id: number;
  user_id: string;
  name: string;
  client_id: string;
  redirect_uris: string[];
  /** Confidential clients authenticate with their secret; public ones (no secret) must use PKCE. */
  confidential: boolean;
  created_at: string;
}

export interface OAuthApplicationInput {
  name: string;
  redirect_uris: string[];
  confidential: boolean;
}

export interface OAuthApplicationStore {
  insert(app: OAuthApplicationInput & { user_id: string; client_id: string; client_secret_hash: string | null }): Promise<OAuthApplication | null>;
  listForUser(userId: string): Promise<OAuthApplication[]>;
  get(id: number, userId: string): Promise<OAuthApplication | null>;
  update(id: number, userId: string, changes: Partial<OAuthApplicationInput>, clientSecretHash?: string | null): Promise<OAuthApplication | null>;
  /** Deletes the application with every grant, code and token issued to it; false when none matched. */
  remove(id: number, userId: string): Promise<boolean>;
  /** The application with this client id and its secret's hash, for oidc-provider's client lookup. */
  byClientId(clientId: string): Promise<(OAuthApplication & { client_secret_hash: string | null }) | null>;
}

/** Prefix of client secrets (Gitea's own `gto_`), so a leaked one is recognisable. */
export const CLIENT_SECRET_PREFIX = 'gto_';
const MAX_NAME = 255;
const MAX_REDIRECT_URIS = 10;
const MAX_REDIRECT_URI_LENGTH = 1024;
const APPLICATION_NOT_FOUND = 'OAuth2 application not found';

type AppDeps = Pick<AccountsDeps, 'oauthApplications'>;

function ownerOf(caller: Caller): string {
  if (!caller.user_id) throw validation(NO_USER_RECORD);
  return caller.user_id;
}

/** Application ids are positive integers; anything else names none. */
export function applicationIdOf(text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw notFound(APPLICATION_NOT_FOUND);
  return Number(text);
}

/**
 * A redirect URI as RFC 6749 §3.1.2 requires: absolute, without a fragment; http(s) or a
 * private-use scheme of a native app (RFC 8252 §7.1), never a scheme a browser would run.
 */
export function checkRedirectUri(uri: unknown): string {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_REDIRECT_URI_LENGTH) throw validation(`redirect_uris must hold absolute URLs of at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw validation(`Invalid redirect URI: ${uri}`);
  }
  if (url.hash || uri.includes('#')) throw validation(`Redirect URI must not have a fragment: ${uri}`);
  if (['javascript:', 'data:', 'vbscript:', 'file:', 'blob:'].includes(url.protocol)) throw validation(`Redirect URI scheme not allowed: ${url.protocol}`);
  if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.hostname) throw validation(`Invalid redirect URI: ${uri}`);
  return uri;
}

/** The body of a create (everything but `confidential_client` required, as Gitea) or, with `partial`, of a PATCH. */
export function parseApplicationInput(body: unknown, partial: boolean): Partial<OAuthApplicationInput> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validation('Request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const out: Partial<OAuthApplicationInput> = {};
  if (b.name !== undefined || !partial) {
    if (typeof b.name !== 'string' || b.name.trim() === '') throw validation('name is required');
    if (b.name.length > MAX_NAME) throw validation(`name must be at most ${MAX_NAME} characters`);
    out.name = b.name.trim();
  }
  if (b.redirect_uris !== undefined || !partial) {
    if (!Array.isArray(b.redirect_uris) || b.redirect_uris.length === 0) throw validation('redirect_uris must be a non-empty array of URLs');
    if (b.redirect_uris.length > MAX_REDIRECT_URIS) throw validation(`redirect_uris must have at most ${MAX_REDIRECT_URIS} URLs`);
    out.redirect_uris = [...new Set(b.redirect_uris.map(checkRedirectUri))];
  }
  if (b.confidential_client !== undefined) {
    if (typeof b.confidential_client !== 'boolean') throw validation('confidential_client must be true or false');
    out.confidential = b.confidential_client;
  } else if (!partial) out.confidential = true; // Gitea's default
  if (partial && Object.keys(out).length === 0) throw validation('Nothing to change: give name, redirect_uris or confidential_client');
  return out;
}

const newSecret = () => CLIENT_SECRET_PREFIX + randomBytes(32).toString('base64url');

export async function createApplication(deps: AppDeps, caller: Caller, body: unknown): Promise<{ application: OAuthApplication; client_secret: string }> {
  const userId = ownerOf(caller);
  const input = parseApplicationInput(body, false) as OAuthApplicationInput;
  // A public client has no secret to keep; Gitea still shows one, which it never checks.
  const secret = newSecret();
  const application = await deps.oauthApplications.insert({ ...input, user_id: userId, client_id: randomUUID(), client_secret_hash: input.confidential ? hashToken(secret) : null });
  if (!application) throw notFound('User not found');
  return { application, client_secret: input.confidential ? secret : '' };
}

export const listApplications = async (deps: AppDeps, caller: Caller) => deps.oauthApplications.listForUser(ownerOf(caller));

export async function getApplication(deps: AppDeps, caller: Caller, id: string): Promise<OAuthApplication> {
  const app = await deps.oauthApplications.get(applicationIdOf(id), ownerOf(caller));
  if (!app) throw notFound(APPLICATION_NOT_FOUND);
  return app;
}

/** Gitea's PATCH: a public client that becomes confidential gets a secret, shown in the answer. */
export async function updateApplication(deps: AppDeps, caller: Caller, id: string, body: unknown): Promise<{ application: OAuthApplication; client_secret: string }> {
  const userId = ownerOf(caller);
  const appId = applicationIdOf(id);
  const changes = parseApplicationInput(body, true);
  const before = await deps.oauthApplications.get(appId, userId);
  if (!before) throw notFound(APPLICATION_NOT_FOUND);
  const becomesConfidential = changes.confidential === true && !before.confidential;
  const secret = becomesConfidential ? newSecret() : '';
  const secretHash = becomesConfidential ? hashToken(secret) : changes.confidential === false ? null : undefined;
  const application = await deps.oauthApplications.update(appId, userId, changes, secretHash);
  if (!application) throw notFound(APPLICATION_NOT_FOUND);
  return { application, client_secret: secret };
}

export async function deleteApplication(deps: AppDeps, caller: Caller, id: string): Promise<void> {
  if (!(await deps.oauthApplications.remove(applicationIdOf(id), ownerOf(caller)))) throw notFound(APPLICATION_NOT_FOUND);
}
