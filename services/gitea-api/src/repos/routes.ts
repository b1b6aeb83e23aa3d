import { Router } from 'express';
import { apiPath } from '@githost/api-client';
import { route } from '@githost/http';
import type { FeatureDeps } from '../http/context.js';
import { gatewayFor } from '../http/context.js';
import { giteaRepositoryOf, type Permission } from './map-repos.js';

/** GET /repos/{owner}/{repo}: the repository as the caller may read it, with the caller's permission. */
export function repoRoutes({ config }: FeatureDeps): Router {
  const router = Router();
  router.get(
    '/repos/:owner/:repo',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const path = { owner: String(req.params.owner), repo: String(req.params.repo) };
      const repo = await gateway.get(apiPath('/api/repos/{owner}/{repo}', path));
      const { permission } = (await gateway.get(apiPath('/api/repos/{owner}/{repo}/permission', path))) as { permission: Permission };
      res.json(giteaRepositoryOf(repo, config.publicUrl, permission));
    }),
  );
  return router;
}
