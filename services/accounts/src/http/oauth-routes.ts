import type { Express } from 'express';
import type Provider from 'oidc-provider';
import type { Database } from '@githost/db';
import { forbidden, validation } from '@githost/errors';
import { route } from '@githost/http';
import type { AccountsDeps } from '../domain/deps.js';
import { createApplication, deleteApplication, getApplication, listApplications, updateApplication, type OAuthApplication } from '../domain/oauth-applications.js';
import { NO_USER_RECORD } from '../domain/tokens.js';
import { answerConsent, authorizedApplications, consentRequest, revokeAuthorization } from '../oauth/consent.js';
import { isProviderPath, providerHandler } from '../oauth/provider.js';
import { callerOf, sessionIdOf } from './caller.js';

export interface OAuthParts {
  provider: Provider;
  db: Database;
}

/** Gitea's OAuth2Application JSON (its swagger `OAuth2Application`): the secret only when just made. */
function applicationJson(app: OAuthApplication, clientSecret = '') {
  return { id: app.id, name: app.name, client_id: app.client_id, client_secret: clientSecret, redirect_uris: app.redirect_uris, confidential_client: app.confidential, skip_secondary_authorization: false, created: app.created_at };
}

/**
 * docs/decisions/oauth2-provider.md: the provider's protocol endpoints (answered by oidc-provider
 * itself, OAuth's own error bodies untouched), Gitea's applications API, and the consent and
 * authorised-applications calls of the web's pages.
 */
export function registerOAuthRoutes(app: Express, deps: AccountsDeps, { provider, db }: OAuthParts): void {
  const protocol = providerHandler(provider);
  app.use((req, res, next) => (isProviderPath(req.path) ? protocol(req, res) : next()));

  const APPS = '/api/v1/user/applications/oauth2';
  app.get(APPS, route(async (_req, res) => void res.json((await listApplications(deps, callerOf(res))).map((a) => applicationJson(a)))));
  app.post(APPS, route(async (req, res) => {
    const { application, client_secret } = await createApplication(deps, callerOf(res), req.body);
    res.status(201).json(applicationJson(application, client_secret));
  }));
  app.get(`${APPS}/:id`, route(async (req, res) => void res.json(applicationJson(await getApplication(deps, callerOf(res), String(req.params.id))))));
  app.patch(`${APPS}/:id`, route(async (req, res) => {
    const { application, client_secret } = await updateApplication(deps, callerOf(res), String(req.params.id), req.body);
    res.json(applicationJson(application, client_secret));
  }));
  app.delete(`${APPS}/:id`, route(async (req, res) => {
    await deleteApplication(deps, callerOf(res), String(req.params.id));
    res.status(204).end();
  }));

  // Approving lets an application act for the user: only the person at the web, signed in with a
  // session, may do it, never a token (which could otherwise grant itself to anyone).
  const sessionUser = (res: Parameters<typeof callerOf>[0]): string => {
    const caller = callerOf(res);
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    if (!sessionIdOf(res)) throw forbidden('Only a signed-in session can answer an authorization request');
    return caller.user_id;
  };
  app.get('/api/user/oauth2/authorizations/:uid', route(async (req, res) => {
    const userId = sessionUser(res);
    res.json(await consentRequest(provider, deps.oauthApplications, db, String(req.params.uid), userId));
  }));
  app.post('/api/user/oauth2/authorizations/:uid', route(async (req, res) => {
    const userId = sessionUser(res);
    const approve = (req.body as { approve?: unknown } | undefined)?.approve;
    if (typeof approve !== 'boolean') throw validation('approve must be true or false');
    res.json({ redirect_to: await answerConsent(provider, db, String(req.params.uid), userId, approve) });
  }));

  app.get('/api/user/oauth2/grants', route(async (_req, res) => {
    const caller = callerOf(res);
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    res.json(await authorizedApplications(db, caller.user_id));
  }));
  app.delete('/api/user/oauth2/grants/:client_id', route(async (req, res) => {
    const caller = callerOf(res);
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    await revokeAuthorization(db, caller.user_id, String(req.params.client_id));
    res.status(204).end();
  }));
}
