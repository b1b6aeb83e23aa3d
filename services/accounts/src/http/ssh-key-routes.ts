import type { Express, Request } from 'express';
import { route } from '@githost/http';
import type { AccountsDeps } from '../domain/deps.js';
import { addDeployKey, addOwnKey, deleteDeployKey, deleteOwnKey, getDeployKey, getOwnKey, listDeployKeys, listOwnKeys } from '../domain/ssh-keys.js';
import { callerOf, repoAccessOf } from './caller.js';
import { deployKeyJson, sshKeyJson } from './present.js';

// No capturing groups: the router would percent-decode them and answer a bad escape with a 500.
const OWN_KEY = /^\/api\/user\/keys\/[^/]+$/;
const DEPLOY_KEYS = /^\/api\/repos\/[^/]+\/[^/]+\/keys$/;
const DEPLOY_KEY = /^\/api\/repos\/[^/]+\/[^/]+\/keys\/[^/]+$/;

/** The last path segment, raw: a key id is digits, so anything needing decoding names no key. */
const lastSegment = (req: Request) => req.path.slice(req.path.lastIndexOf('/') + 1);

/** docs/decisions/ssh-keys.md: a user's SSH keys and a repository's deploy keys, GitHub's paths and fields. */
export function registerSshKeyRoutes(app: Express, deps: AccountsDeps): void {
  app.get('/api/user/keys', route(async (_req, res) => {
    res.json((await listOwnKeys(deps, callerOf(res))).map(sshKeyJson));
  }));

  app.post('/api/user/keys', route(async (req, res) => {
    res.status(201).json(sshKeyJson(await addOwnKey(deps, callerOf(res), req.body)));
  }));

  app.get(OWN_KEY, route(async (req, res) => {
    res.json(sshKeyJson(await getOwnKey(deps, callerOf(res), lastSegment(req))));
  }));

  app.delete(OWN_KEY, route(async (req, res) => {
    await deleteOwnKey(deps, callerOf(res), lastSegment(req));
    res.status(204).end();
  }));

  app.get(DEPLOY_KEYS, route(async (_req, res) => {
    callerOf(res);
    res.json((await listDeployKeys(deps, repoAccessOf(res))).map(deployKeyJson));
  }));

  app.post(DEPLOY_KEYS, route(async (req, res) => {
    callerOf(res);
    res.status(201).json(deployKeyJson(await addDeployKey(deps, repoAccessOf(res), req.body)));
  }));

  app.get(DEPLOY_KEY, route(async (req, res) => {
    callerOf(res);
    res.json(deployKeyJson(await getDeployKey(deps, repoAccessOf(res), lastSegment(req))));
  }));

  app.delete(DEPLOY_KEY, route(async (req, res) => {
    callerOf(res);
    await deleteDeployKey(deps, repoAccessOf(res), lastSegment(req));
    res.status(204).end();
  }));
}
