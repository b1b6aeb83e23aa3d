import { Router, type Request, type Response } from 'express';
import { apiPath } from '@githost/api-client';
import { route } from '@githost/http';
import { giteaErrorBody } from '../http/errors.js';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { setPagingHeaders, pagingOf } from '../http/pagination.js';
import { disabledAnswer, type DisabledUnit } from './map-disabled.js';

/**
 * Issues, labels, milestones, organisations and releases, which githost does not have: answered
 * as Gitea answers with the unit off, after the same access check as every repository path (a
 * private repository stays a 404 for a stranger; services/gitea-api/README.md#what-githost-does-not-have).
 */
export function disabledUnitRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  const send = (req: Request, res: Response, unit: DisabledUnit) => {
    const answer = disabledAnswer(unit);
    if (answer.status === 200) {
      setPagingHeaders(req, res, 0, pagingOf(req), config.publicUrl);
      res.json(answer.body);
    } else res.status(answer.status).json(giteaErrorBody(answer.message, config.publicUrl));
  };
  /** The repository's access check, as githost decides it; resolves to the caller's permission. */
  const permissionOn = async (req: Request) => {
    const gateway = gatewayFor(req, config);
    const params = { owner: String(req.params.owner), repo: String(req.params.repo) };
    return (await gateway.get(apiPath('/api/repos/{owner}/{repo}/permission', params))).permission;
  };
  const repoUnit = (unit: (req: Request, permission: string) => DisabledUnit) =>
    route(async (req, res) => {
      send(req, res, unit(req, await permissionOn(req)));
    });
  const type = (req: Request) => {
    const value = (req.query as Record<string, unknown>).type;
    return typeof value === 'string' ? value : undefined;
  };

  // Issues as issues; the pull requests Gitea also lists here are the pulls feature's.
  router.get('/repos/:owner/:repo/issues', (req, res, next) => (type(req) === 'issues' ? repoUnit(() => ({ kind: 'issues-list', type: 'issues' }))(req, res, next) : next()));
  router.post('/repos/:owner/:repo/issues', repoUnit(() => ({ kind: 'issue-create' })));
  router.get('/repos/:owner/:repo/labels', repoUnit(() => ({ kind: 'labels-list' })));
  router.post('/repos/:owner/:repo/labels', repoUnit(() => ({ kind: 'label-write' })));
  router.get('/repos/:owner/:repo/labels/:id', repoUnit(() => ({ kind: 'label' })));
  router.patch('/repos/:owner/:repo/labels/:id', repoUnit(() => ({ kind: 'label-write' })));
  router.delete('/repos/:owner/:repo/labels/:id', repoUnit(() => ({ kind: 'label-write' })));
  router.get('/repos/:owner/:repo/milestones', repoUnit(() => ({ kind: 'milestones-list' })));
  router.post('/repos/:owner/:repo/milestones', repoUnit(() => ({ kind: 'milestone-write' })));
  router.get('/repos/:owner/:repo/milestones/:id', repoUnit(() => ({ kind: 'milestone' })));
  router.patch('/repos/:owner/:repo/milestones/:id', repoUnit(() => ({ kind: 'milestone-write' })));
  router.delete('/repos/:owner/:repo/milestones/:id', repoUnit(() => ({ kind: 'milestone-write' })));
  router.get('/repos/:owner/:repo/releases', repoUnit((_req, p) => ({ kind: 'releases', admin: p === 'admin', list: true })));
  router.all('/repos/:owner/:repo/releases/*rest', repoUnit((_req, p) => ({ kind: 'releases', admin: p === 'admin', list: false })));
  router.post('/repos/:owner/:repo/releases', repoUnit((_req, p) => ({ kind: 'releases', admin: p === 'admin', list: false })));

  // Organisations: githost's owners are all users.
  router.get(['/orgs', '/user/orgs', '/users/:username/orgs'], (req, res) => send(req, res, { kind: 'org-list' }));
  router.all(['/orgs/:org', '/orgs/:org/*rest'], (req, res) => send(req, res, { kind: 'org' }));

  return router;
}
