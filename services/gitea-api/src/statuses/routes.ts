import { Router, type Request } from 'express';
import { apiPath } from '@githost/api-client';
import type { CommitStatus } from '@githost/api-types';
import { route } from '@githost/http';
import type { FeatureDeps } from '../http/context.js';
import { pagingOf, sendPage } from '../http/pagination.js';
import { giteaCall, param, repoScope, type RepoScope } from '../pulls/repo-context.js';
import { sortStatuses, toCreateStatus, toGiteaCombined, toGiteaStatus, type StatusContext } from './map-status.js';

const REPO = '/repos/:owner/:repo';
/** githost's page size maximum; its status history per sha and context stops at 1,000. */
const PER_PAGE = 100;

const statusContext = (s: RepoScope): StatusContext => ({ publicUrl: s.publicUrl, owner: s.owner, name: s.name, repoId: s.repoId, repository: s.repository, user: s.user });

/** The ref of `commits/{ref}/status(es)`, which may hold slashes (a branch like `renovate/x`). */
const refOf = (req: Request) => {
  const raw = req.params.ref as unknown;
  return Array.isArray(raw) ? raw.join('/') : String(raw ?? '');
};

/** Every status of a ref's commit, newest first: githost's pages read to the end. */
async function allStatuses(s: RepoScope, ref: string): Promise<CommitStatus[]> {
  const out: CommitStatus[] = [];
  for (let page = 1; ; page++) {
    const batch = await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/commits/{ref}/statuses', { owner: s.owner, repo: s.name, ref }, `?per_page=${PER_PAGE}&page=${page}`));
    out.push(...batch);
    if (batch.length < PER_PAGE) return out;
  }
}

/** Commit statuses: create, list (by ref or sha) and the combined status. */
export function statusRoutes({ config }: FeatureDeps): Router {
  const router = Router();

  router.post(
    `${REPO}/statuses/:sha`,
    route(async (req, res) => {
      const body = toCreateStatus(req.body);
      const s = await repoScope(req, config);
      const created = await giteaCall(s, 'write', s.gateway.call('POST', apiPath('/api/repos/{owner}/{repo}/statuses/{sha}', { owner: s.owner, repo: s.name, sha: param(req, 'sha') }), body));
      res.status(201).json(toGiteaStatus(statusContext(s), created));
    }),
  );

  const list = route(async (req, res) => {
    const s = await repoScope(req, config);
    const ref = req.params.sha !== undefined ? param(req, 'sha') : refOf(req);
    const state = typeof req.query.state === 'string' && req.query.state !== '' ? req.query.state : null;
    const ctx = statusContext(s);
    const statuses = sortStatuses(await allStatuses(s, ref), req.query.sort).filter((st) => state === null || st.state === state);
    sendPage(req, res, statuses.map((st) => toGiteaStatus(ctx, st)), pagingOf(req), config.publicUrl);
  });
  router.get(`${REPO}/statuses/:sha`, list);
  router.get(`${REPO}/commits/*ref/statuses`, list);

  router.get(
    `${REPO}/commits/*ref/status`,
    route(async (req, res) => {
      const s = await repoScope(req, config);
      const combined = await s.gateway.get(apiPath('/api/repos/{owner}/{repo}/commits/{ref}/status', { owner: s.owner, repo: s.name, ref: refOf(req) }));
      if (combined.statuses.length > 0) res.setHeader('X-Total-Count', String(combined.statuses.length));
      res.json(toGiteaCombined(statusContext(s), combined.statuses));
    }),
  );

  return router;
}

