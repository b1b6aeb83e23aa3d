import type { Express, Request } from 'express';
import { notFound } from '@githost/errors';
import { route } from '@githost/http';
import { parsePage } from '../domain/paging.js';
import type { AccountsDeps } from '../domain/deps.js';
import { deleteUser, listUsers, listUserTokens, revokeUserToken, updateUser } from '../domain/user-admin.js';
import { callerOf } from './caller.js';
import { sendPage } from './link-header.js';
import { deleteUserKey, listUserKeys } from '../domain/ssh-keys.js';
import { adminUserJson, sshKeyJson, tokenJson } from './present.js';

// No capturing groups: the router would percent-decode them and answer a bad escape with a 500.
const USER = /^\/api\/admin\/users\/[^/]+$/;
const USER_TOKENS = /^\/api\/admin\/users\/[^/]+\/tokens$/;
const USER_KEYS = /^\/api\/admin\/users\/[^/]+\/keys$/;
const USER_KEY = /^\/api\/admin\/users\/[^/]+\/keys\/[^/]+$/;
const USER_TOKEN = /^\/api\/admin\/users\/[^/]+\/tokens\/[^/]+$/;

/** The path segment at `index` (0 is before the first slash), percent-decoded once. */
function segment(req: Request, index: number, notFoundMessage: string): string {
  try {
    return decodeURIComponent(req.path.split('/')[index] ?? '');
  } catch {
    throw notFound(notFoundMessage);
  }
}

const usernameOf = (req: Request) => segment(req, 4, 'User not found');

/** services/accounts/README.md#users-and-tokens: site-admin management of users and their tokens. */
export function registerAdminRoutes(app: Express, deps: AccountsDeps, publicUrl: string): void {
  app.get('/api/admin/users', route(async (req, res) => {
    const caller = callerOf(res);
    const page = parsePage(req.query);
    sendPage(req, res, publicUrl, page, await listUsers(deps, caller, page), adminUserJson);
  }));

  app.patch(USER, route(async (req, res) => {
    res.json(adminUserJson(await updateUser(deps, callerOf(res), usernameOf(req), req.body)));
  }));

  app.delete(USER, route(async (req, res) => {
    await deleteUser(deps, callerOf(res), usernameOf(req));
    res.status(204).end();
  }));

  app.get(USER_TOKENS, route(async (req, res) => {
    res.json((await listUserTokens(deps, callerOf(res), usernameOf(req))).map(tokenJson));
  }));

  app.delete(USER_TOKEN, route(async (req, res) => {
    const caller = callerOf(res);
    await revokeUserToken(deps, caller, usernameOf(req), segment(req, 6, 'Token not found'));
    res.status(204).end();
  }));

  app.get(USER_KEYS, route(async (req, res) => {
    res.json((await listUserKeys(deps, callerOf(res), usernameOf(req))).map(sshKeyJson));
  }));

  app.delete(USER_KEY, route(async (req, res) => {
    const caller = callerOf(res);
    await deleteUserKey(deps, caller, usernameOf(req), segment(req, 6, 'Key not found'));
    res.status(204).end();
  }));
}
