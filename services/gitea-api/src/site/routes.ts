import { Router } from 'express';
import { apiSettingsOf, versionOf } from './map-site.js';

/** Facts about the instance: no caller needed, as on Gitea. */
export function siteRoutes(): Router {
  const router = Router();
  router.get('/version', (_req, res) => void res.json(versionOf()));
  router.get('/settings/api', (_req, res) => void res.json(apiSettingsOf()));
  return router;
}
