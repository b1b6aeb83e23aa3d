import type { Express, Request } from 'express';
import { notFound } from '@githost/errors';
import { identityOf, route } from '@githost/http';
import { parseUpdateRepository } from '../domain/input.js';
import { parseGiteaIdFilter, parseNameFilter, parsePage } from '../domain/paging.js';
import { manageableRepositoryId } from '../domain/repo-access.js';
import type { AccountsDeps } from '../domain/deps.js';
import { deleteRepository, exploreRepositories, listCollaborators, listMyRepositories, listUserRepositories, updateRepository } from '../domain/repositories.js';
import { exploreUsers } from '../domain/users.js';
import { callerOf, optionalCallerOf, repoAccessOf } from './caller.js';
import { sendPage } from './link-header.js';
import { publicUserJson, repositoryJson } from './present.js';

// No capturing group: the router would percent-decode it and answer a bad escape with a 500.
const USER_REPOS = /^\/api\/users\/[^/]+\/repos$/;

function usernameOf(req: Request): string {
  try {
    return decodeURIComponent(req.path.split('/')[3] ?? '');
  } catch {
    throw notFound('User not found');
  }
}

/** docs/decisions/repositories.md: listing, changing and deleting repositories, and their collaborators. */
export function registerRepositoryRoutes(app: Express, deps: AccountsDeps, publicUrl: string): void {
  const asJson = (r: Parameters<typeof repositoryJson>[0]) => repositoryJson(r, publicUrl);

  // The explore lists (docs/decisions/explore-lists.md): anyone may ask; each answers only what
  // the caller may see. The filter is read before the page, so a bad one changes nothing.
  app.get('/api/repos', route(async (req, res) => {
    const filter = { nameContains: parseNameFilter(req.query), giteaId: parseGiteaIdFilter(req.query) };
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await exploreRepositories(deps, optionalCallerOf(res), filter, page), asJson);
  }));

  app.get('/api/users', route(async (req, res) => {
    const q = parseNameFilter(req.query);
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await exploreUsers(deps, q, page), publicUserJson);
  }));

  app.get('/api/user/repos', route(async (req, res) => {
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await listMyRepositories(deps, callerOf(res), page), asJson);
  }));

  app.get(USER_REPOS, route(async (req, res) => {
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await listUserRepositories(deps, usernameOf(req), optionalCallerOf(res), page), asJson);
  }));

  app.patch('/api/repos/:owner/:repo', route(async (req, res) => {
    callerOf(res);
    const access = repoAccessOf(res);
    // Access is decided before the body is read: a stranger learns nothing from a 400.
    manageableRepositoryId(access);
    const repo = await updateRepository(deps, access, parseUpdateRepository(req.body), { requestId: identityOf(res).request_id });
    res.json(asJson(repo));
  }));

  app.delete('/api/repos/:owner/:repo', route(async (_req, res) => {
    const caller = callerOf(res);
    await deleteRepository(deps, repoAccessOf(res), caller, { requestId: identityOf(res).request_id });
    res.status(204).end();
  }));

  app.get('/api/repos/:owner/:repo/collaborators', route(async (req, res) => {
    callerOf(res);
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await listCollaborators(deps, repoAccessOf(res), page), (c) => ({ username: c.username, permission: c.permission }));
  }));
}
