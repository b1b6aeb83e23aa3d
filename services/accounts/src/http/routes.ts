import type { Express } from 'express';
import { unauthenticated, validation } from '@githost/errors';
import { identityOf, route } from '@githost/http';
import { parseCreateRepository, parseCreateUser } from '../domain/input.js';
import { parseCreateToken } from '../domain/token-input.js';
import type { AccountsDeps } from '../domain/deps.js';
import { createRepository, getRepository, putCollaborator, removeCollaborator } from '../domain/repositories.js';
import { readablePermission } from '../domain/repo-access.js';
import { hashNewPassword } from '../domain/sessions.js';
import { issueToken, listOwnTokens, NO_USER_RECORD, revokeToken } from '../domain/tokens.js';
import { createUser, requireSiteAdmin, userById, userByUsername } from '../domain/users.js';
import { callerOf, repoAccessOf } from './caller.js';
import { registerAdminRoutes } from './admin-routes.js';
import { registerProtectionRoutes } from './protection-routes.js';
import { registerRepositoryRoutes } from './repository-routes.js';
import { registerSshKeyRoutes } from './ssh-key-routes.js';
import { registerSessionRoutes, type SignInObserver } from './session-routes.js';
import { optionalPassword } from '../domain/passwords.js';
import { issuedTokenJson, repositoryJson, tokenJson, userJson } from './present.js';

/** CONTRACT §8 accounts endpoints; the gateway forwards these paths unchanged. */
export function registerRoutes(app: Express, deps: AccountsDeps, publicUrl: string, onSignIn?: SignInObserver): void {
  app.post('/api/admin/users', route(async (req, res) => {
    const caller = callerOf(res);
    requireSiteAdmin(caller);
    const input = parseCreateUser(req.body);
    const password = optionalPassword(req.body);
    const user = await createUser(deps, caller, input, password === undefined ? undefined : await hashNewPassword(deps, password));
    res.status(201).json(userJson(user));
  }));

  app.post('/api/admin/users/:username/tokens', route(async (req, res) => {
    requireSiteAdmin(callerOf(res));
    const input = parseCreateToken(req.body, Date.now());
    const user = await userByUsername(deps, String(req.params.username));
    res.status(201).json(issuedTokenJson(await issueToken(deps, user, input)));
  }));

  app.get('/api/user', route(async (_req, res) => {
    const caller = callerOf(res);
    // The bootstrap admin has no record; it is described by what the gateway signed.
    const user = caller.user_id ? await userById(deps, caller.user_id) : null;
    // A principal signed before its user was suspended (services/accounts/README.md#users-and-tokens).
    if (user?.suspended_at) throw unauthenticated();
    if (user) res.json({ id: user.id, username: user.username, email: user.email, is_admin: user.is_admin });
    else res.json({ id: caller.user_id, username: caller.username, email: null, is_admin: caller.is_admin });
  }));

  app.get('/api/user/tokens', route(async (_req, res) => {
    res.json((await listOwnTokens(deps, callerOf(res))).map(tokenJson));
  }));

  app.post('/api/user/tokens', route(async (req, res) => {
    const caller = callerOf(res);
    if (!caller.user_id) throw validation(NO_USER_RECORD);
    // The signed is_admin is false for a token without the admin scope, so no token mints a
    // token with more than its own scopes (services/accounts/README.md#token-scopes).
    const holder = { id: caller.user_id, is_admin: caller.is_admin };
    res.status(201).json(issuedTokenJson(await issueToken(deps, holder, parseCreateToken(req.body, Date.now()))));
  }));

  app.delete('/api/user/tokens/:id', route(async (req, res) => {
    await revokeToken(deps, callerOf(res), String(req.params.id));
    res.status(204).end();
  }));

  app.post('/api/repos', route(async (req, res) => {
    const caller = callerOf(res);
    const repo = await createRepository(deps, caller, parseCreateRepository(req.body), { requestId: identityOf(res).request_id });
    res.status(201).json(repositoryJson(repo, publicUrl));
  }));

  app.get('/api/repos/:owner/:repo', route(async (_req, res) => {
    res.json(repositoryJson(await getRepository(deps, repoAccessOf(res)), publicUrl));
  }));

  // The caller's permission as the gateway decided it (capped by the token's scopes): a fact the
  // Gitea-compatible API shows as a repository's `permissions` (docs/decisions/gitea-api.md#what-was-added-to-githosts-api).
  app.get('/api/repos/:owner/:repo/permission', route((_req, res) => {
    res.json({ permission: readablePermission(repoAccessOf(res)) });
  }));

  app.put('/api/repos/:owner/:repo/collaborators/:username', route(async (req, res) => {
    callerOf(res);
    await putCollaborator(deps, repoAccessOf(res), String(req.params.username), req.body);
    res.status(204).end();
  }));

  app.delete('/api/repos/:owner/:repo/collaborators/:username', route(async (req, res) => {
    callerOf(res);
    await removeCollaborator(deps, repoAccessOf(res), String(req.params.username));
    res.status(204).end();
  }));

  registerAdminRoutes(app, deps, publicUrl);
  registerSessionRoutes(app, deps, onSignIn);
  registerProtectionRoutes(app, deps);
  registerSshKeyRoutes(app, deps);
  registerRepositoryRoutes(app, deps, publicUrl);
}
