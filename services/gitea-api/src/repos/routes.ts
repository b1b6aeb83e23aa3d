import { Router, type Request, type Response } from 'express';
import { apiPath } from '@githost/api-client';
import type { Repository } from '@githost/api-types';
import { giteaIdOf, repositoryKey } from '@githost/gitea-ids';
import { notFound, unauthenticated, validation } from '@githost/errors';
import { route } from '@githost/http';
import { gatewayFor, type FeatureDeps } from '../http/context.js';
import { pageOf, pagingOf, setPagingHeaders, type Paging } from '../http/pagination.js';
import type { GatewayClient } from '../gateway-client.js';
import { giteaRepositoryOf, searchResultsOf } from './map-repos.js';
import { repositoryFacts } from './load.js';

/** githost's largest page: whole lists are read in as few calls as possible. */
const GITHOST_PAGE = 100;

/** Every item of a paged githost list, page after page. */
async function everyPage(fetchPage: (page: number) => Promise<{ items: Repository[]; total: number }>): Promise<Repository[]> {
  const all: Repository[] = [];
  for (let page = 1; ; page++) {
    const { items, total } = await fetchPage(page);
    all.push(...items);
    if (items.length < GITHOST_PAGE || all.length >= total) return all;
  }
}

const contains = (q: string) => (r: Repository) => q === '' || r.name.toLowerCase().includes(q.toLowerCase());

/**
 * `GET /repos/{owner}/{repo}`, `GET /repositories/{id}`, `GET /user/repos`, `GET /repos/search`:
 * githost's repositories as Gitea's, each with the caller's permission and whether it is empty.
 */
export function repoRoutes({ config }: FeatureDeps): Router {
  const router = Router();
  const asGitea = async (gateway: GatewayClient, repos: Repository[]) => {
    const facts = await Promise.all(repos.map((r) => repositoryFacts(gateway, config, r.owner, r.name, r)));
    return facts.map((f) => giteaRepositoryOf(f, config.publicUrl));
  };
  const explorePage = (gateway: GatewayClient, q: string, perPage = GITHOST_PAGE) => (page: number) =>
    gateway.page(apiPath('/api/repos', {}, `?${new URLSearchParams({ ...(q ? { q } : {}), page: String(page), per_page: String(perPage) }).toString()}`));
  const mine = (gateway: GatewayClient) => (page: number) => gateway.page(apiPath('/api/user/repos', {}, `?page=${page}&per_page=${GITHOST_PAGE}`));
  const sendRepos = async (req: Request, res: Response, gateway: GatewayClient, repos: Repository[], paging: Paging, wrap: boolean) => {
    setPagingHeaders(req, res, repos.length, paging, config.publicUrl);
    const data = await asGitea(gateway, pageOf(repos, paging));
    res.json(wrap ? searchResultsOf(data) : data);
  };

  router.get(
    '/repos/search',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      const paging = pagingOf(req);
      const query = req.query as Record<string, unknown>;
      const q = typeof query.q === 'string' ? query.q.trim() : '';
      if (q.length > 100) throw validation('q must be at most 100 characters');
      const uid = typeof query.uid === 'string' && /^\d+$/.test(query.uid) ? Number(query.uid) : 0;
      if (uid === 0) {
        // githost's explore list is the search: what the caller may read, by a part of the name.
        const { items, total } = await explorePage(gateway, q, paging.limit)(paging.page);
        setPagingHeaders(req, res, total, paging, config.publicUrl);
        res.json(searchResultsOf(await asGitea(gateway, items)));
        return;
      }
      // `uid`: the repositories that user owns or collaborates on (Gitea's reading): the caller's
      // own list for the caller, else the explore list's repositories that user owns.
      const me = gateway.signedIn ? await gateway.get(apiPath('/api/user')) : null;
      const repos = me && giteaIdOf('user', me.username) === uid ? await everyPage(mine(gateway)) : (await everyPage(explorePage(gateway, ''))).filter((r) => giteaIdOf('user', r.owner) === uid);
      await sendRepos(req, res, gateway, repos.filter(contains(q)), paging, true);
    }),
  );

  router.get(
    '/user/repos',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      if (!gateway.signedIn) throw unauthenticated('token is required');
      const paging = pagingOf(req);
      const { items, total } = await gateway.page(apiPath('/api/user/repos', {}, `?page=${paging.page}&per_page=${paging.limit}`));
      setPagingHeaders(req, res, total, paging, config.publicUrl);
      res.json(await asGitea(gateway, items));
    }),
  );

  router.get(
    '/repositories/:id',
    route(async (req, res) => {
      const id = String(req.params.id);
      if (!/^\d{1,16}$/.test(id)) throw validation('id must be an integer');
      const gateway = gatewayFor(req, config);
      // The explore list filtered by the Gitea id accounts keeps beside each repository
      // (docs/decisions/gitea-api.md#integer-ids): one indexed row, and only if the caller may
      // read it, so a stranger's private repository stays a 404.
      if (Number(id) < 1 || Number(id) > 2 ** 48) throw notFound('repository does not exist');
      const { items } = await gateway.page(apiPath('/api/repos', {}, `?gitea_id=${id}&per_page=1`));
      const repo = items[0];
      if (!repo || giteaIdOf('repository', repositoryKey(repo.id)) !== Number(id)) throw notFound('repository does not exist');
      res.json(giteaRepositoryOf(await repositoryFacts(gateway, config, repo.owner, repo.name, repo), config.publicUrl));
    }),
  );

  router.get(
    '/repos/:owner/:repo',
    route(async (req, res) => {
      const gateway = gatewayFor(req, config);
      res.json(giteaRepositoryOf(await repositoryFacts(gateway, config, String(req.params.owner), String(req.params.repo)), config.publicUrl));
    }),
  );

  return router;
}
