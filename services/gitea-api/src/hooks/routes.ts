import { Router, type Request } from 'express';
import { apiPath } from '@githost/api-client';
import { notFound } from '@githost/errors';
import { route } from '@githost/http';
import type { FeatureDeps } from '../http/context.js';
import { pagingOf, sendPage } from '../http/pagination.js';
import { giteaCall, param, repoScope, type RepoScope } from '../pulls/repo-context.js';
import { hookId, toCreateHook, toEditHook, toGiteaHook } from './map-hook.js';

const BASE = '/repos/:owner/:repo/hooks';

const webhooksPath = (s: RepoScope) => apiPath('/api/repos/{owner}/{repo}/webhooks', { owner: s.owner, repo: s.name });
const webhookPath = (s: RepoScope, id: string) => apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}', { owner: s.owner, repo: s.name, webhook_id: id });

/** One webhook's settings (its type included) through the webhooks service's settings endpoint. */
const settingsOf = (s: RepoScope, id: string) => giteaCall(s, 'write', s.gateway.get(webhookPath(s, id)));

/** The githost webhook behind Gitea's integer hook id (derived from its uuid, so found by listing). */
async function uuidOf(s: RepoScope, req: Request): Promise<string> {
  const asked = param(req, 'id');
  const hooks = await giteaCall(s, 'write', s.gateway.get(webhooksPath(s)));
  const hook = hooks.find((h) => String(hookId(h.id)) === asked);
  if (!hook) throw notFound('hook does not exist');
  return hook.id;
}

/** Repository webhooks in Gitea's `Hook` form, mapped onto githost webhooks with their `type` (docs/decisions/gitea-api.md#hooks). */
export function hookRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.get(
    BASE,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const hooks = await giteaCall(s, 'write', s.gateway.get(webhooksPath(s)));
      const settings = await Promise.all(hooks.map((h) => settingsOf(s, h.id)));
      sendPage(req, res, settings.map(toGiteaHook), pagingOf(req), config.publicUrl);
    }),
  );

  router.get(
    `${BASE}/:id`,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      res.json(toGiteaHook(await settingsOf(s, await uuidOf(s, req))));
    }),
  );

  // Gitea creates a hook inactive unless `active` is true; githost creates it active, then switches it off.
  router.post(
    BASE,
    route(async (req, res) => {
      const { create, active } = toCreateHook(req.body);
      const s = await repoScope(req, config);
      const created = await giteaCall(s, 'write', s.gateway.call('POST', webhooksPath(s), create));
      const settings = await giteaCall(s, 'write', s.gateway.call('PATCH', webhookPath(s, created.id), active ? {} : { is_active: false }));
      res.status(201).json(toGiteaHook(settings));
    }),
  );

  router.patch(
    `${BASE}/:id`,
    route(async (req, res) => {
      const changes = toEditHook(req.body);
      const s = await repoScope(req, config);
      const id = await uuidOf(s, req);
      res.json(toGiteaHook(await giteaCall(s, 'write', s.gateway.call('PATCH', webhookPath(s, id), changes))));
    }),
  );

  router.delete(
    `${BASE}/:id`,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const id = await uuidOf(s, req);
      await giteaCall(s, 'write', s.gateway.call('DELETE', webhookPath(s, id)));
      res.status(204).end();
    }),
  );

  // Gitea's test delivery is githost's ping: one delivery to this hook only.
  router.post(
    `${BASE}/:id/tests`,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const id = await uuidOf(s, req);
      await giteaCall(s, 'write', s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/webhooks/{webhook_id}/pings', { owner: s.owner, repo: s.name, webhook_id: id })));
      res.status(204).end();
    }),
  );

  return router;
}
