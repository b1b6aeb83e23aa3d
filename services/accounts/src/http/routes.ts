import type { Express } from 'express';
import { unauthenticated, validation } from '@githost/errors';
import { identityOf, route } from '@githost/http';
import { parseCreateRepository, parseCreateUser } from '../domain/input.js';
import { parseCreateToken } from '../domain/token-input.js';
import type { AccountsServices } from '../domain/services.js';
import { NO_USER_RECORD } from '../domain/tokens.js';
import { requireSiteAdmin } from '../domain/users.js';
import { callerOf, repoAccessOf } from './caller.js';
import { registerAdminRoutes } from './admin-routes.js';
import { registerProtectionRoutes } from './protection-routes.js';
import { registerRepositoryRoutes } from './repository-routes.js';
import { registerSessionRoutes, type SignInObserver } from './session-routes.js';
import { optionalPassword } from '../domain/passwords.js';
import { issuedTokenJson, repositoryJson, tokenJson, userJson } from './present.js';

/** CONTRACT §8 accounts endpoints; the gateway forwards these paths unchanged. */
export function registerRoutes(app: Express, services: AccountsServices, publicUrl: string, onSignIn?: SignInObserver): void {
  const { users, tokens, repositories } = services;

  app.post('/api/admin/users', route(async (req, res) => {
    const caller = callerOf(res);
    requireSiteAdmin(caller);
    const input = parseCreateUser(req.body);
    const password = optionalPassword(req.body);
    const user = await users.create(caller, input, password === undefined ? undefined : await services.sessions.hashNewPassword(password));
    res.status(201).json(userJson(user));
  }));

  app.post('/api/admin/users/:username/tokens', route(async (req, res) => {
    requireSiteAdmin(callerOf(res));
    const input = parseCreateToken(req.body, Date.now());
    const user = await users.byUsername(String(req.params.username));
    res.status(201).json(issuedTokenJson(await tokens.issue(user, input)));
  }));

  app.get('/api/user', route(async (_req, res) => {
    const caller = callerOf(res);
    // The bootstrap admin has no record; it is described by what the gateway signed.
    const user = caller.user_id ? await users.byId(caller.user_id) : null;
    // A principal signed before its user was suspended (README "Users and tokens").
    if (user?.suspended_at) throw unauthenticated();
    if (user) res.json({ id: user.id, username: user.username, email: user.email, is_admin: user.is_admin });
    else res.json({ id: caller.user_id, username: caller.username, email: null, is_admin: caller.is_admin });
  }));

  app.get('/api/user/tokens', route(async (_req, res) => {
    res.json((await tokens.list(callerOf(res))).map(tokenJson));
  }));

  app.post('/api/user/tokens', route(async (req, res) => {
    const caller = callerOf(res);
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    // The signed is_admin is false for a token without the admin scope, so no token mints a
    // token with more than its own scopes (README "Token scopes").
    const holder = { id: caller.user_id, is_admin: caller.is_admin };
    res.status(201).json(issuedTokenJson(await tokens.issue(holder, parseCreateToken(req.body, Date.now()))));
  }));

  app.delete('/api/user/tokens/:id', route(async (req, res) => {
    await tokens.revoke(callerOf(res), String(req.params.id));
    res.status(204).end();
  }));

  app.post('/api/repos', route(async (req, res) => {
    const caller = callerOf(res);
    const repo = await repositories.create(caller, parseCreateRepository(req.body), { requestId: identityOf(res).request_id });
    res.status(201).json(repositoryJson(repo, publicUrl));
  }));

  app.get('/api/repos/:owner/:repo', route(async (_req, res) => {
    res.json(repositoryJson(await repositories.get(repoAccessOf(res)), publicUrl));
  }));

  app.put('/api/repos/:owner/:repo/collaborators/:username', route(async (req, res) => {
    callerOf(res);
    await repositories.setCollaborator(repoAccessOf(res), String(req.params.username), req.body);
    res.status(204).end();
  }));

  app.delete('/api/repos/:owner/:repo/collaborators/:username', route(async (req, res) => {
    callerOf(res);
    await repositories.removeCollaborator(repoAccessOf(res), String(req.params.username));
    res.status(204).end();
  }));

  registerAdminRoutes(app, services.admin, publicUrl);
  registerSessionRoutes(app, services.sessions, onSignIn);
  registerProtectionRoutes(app, services.protections);
  registerRepositoryRoutes(app, repositories, users, publicUrl);
}
