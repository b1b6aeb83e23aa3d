import { express, identityOf, parseCursorPage, route, sendCursorPage, type Response } from '@githost/http';
import type { Identity } from '@githost/identity';
import { listMergeRequestCommits } from '../domain/commits.js';
import { updateMergeRequest } from '../domain/lifecycle.js';
import { mergeMergeRequest } from '../domain/merge.js';
import { listWithMergeFactsPage, MERGE_FACTS_MAX, mergeFactsOf } from '../domain/merge-facts.js';
import { addComment, createMergeRequest, getMergeRequest, listActivity, listActivityPage, listMergeRequests, listMergeRequestsPage, type Deps } from '../domain/merge-requests.js';
import type { EventRelay, GitPort, ReviewRequestStore } from '../domain/ports.js';
import type { Caller, RepoRef } from '../domain/types.js';
import type { MergeMetrics } from '../metrics.js';
import { announced, type Announce } from './announce.js';

export interface RouteDeps extends Omit<Deps, 'git'> {
  /** Pending review requests, which the merge facts answer. */
  requests: ReviewRequestStore;
  /** git access on the repository's shard, tagged with the request's id. */
  gitFor(requestId: string, shard: string): GitPort;
  /** accounts lookups tagged with the request's id; `users` when absent. */
  usersFor?(requestId: string): Deps['users'];
  relay: EventRelay;
  metrics?: MergeMetrics;
  /** Base of the Link header's URLs (PUBLIC_URL). */
  publicUrl?: string;
  /** Every write is announced before it answers (./announce.ts); none when absent (tests). */
  announce?: Announce;
}

export function contextOf(res: Response) {
  const identity: Identity = identityOf(res);
  const repo: RepoRef | null = identity.repo
    ? { id: identity.repo.id, owner: identity.repo.owner, name: identity.repo.name, shard: identity.repo.shard, private: identity.repo.private, permission: identity.repo.permission }
    : null;
  const caller: Caller | null = identity.principal ? { user_id: identity.principal.user_id, username: identity.principal.username } : null;
  return { repo, caller, requestId: identity.request_id };
}

/** The gateway forwards these paths unchanged; the repository comes from the signed identity. */
export function mergeRequestRoutes(deps: RouteDeps): express.Router {
  const router = express.Router();
  const domain = (res: Response) => {
    const ctx = contextOf(res);
    return { ctx, deps: { ...deps, git: deps.gitFor(ctx.requestId, ctx.repo?.shard ?? ''), users: deps.usersFor?.(ctx.requestId) ?? deps.users, relay: deps.relay } };
  };
  const base = '/api/repos/:owner/:repo';

  router.post(
    `${base}/merge-requests`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.status(201).json(await announced(deps.announce, ctx, () => createMergeRequest(d, ctx.repo, ctx.caller, req.body, ctx.requestId)));
    }),
  );
  router.get(
    `${base}/merge-requests`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      // Paged only when asked (per_page or cursor): the spec's answer stays as it is otherwise.
      const page = parseCursorPage(req.query as Record<string, unknown>);
      if (!page) return void res.json(await listMergeRequests(d, ctx.repo, req.query.state));
      const found = await listMergeRequestsPage(d, ctx.repo, req.query.state, page);
      // As GitLab and Gitea count theirs: a client paging by offset (the Gitea-compatible API) needs the length.
      res.setHeader('X-Total-Count', String(found.total));
      sendCursorPage(req, res, deps.publicUrl ?? '', page, found, found.rows);
    }),
  );
  // Beside the spec, before `:number` (services/merge-requests/README.md#merge-facts).
  router.get(
    `${base}/merge-requests/merge-facts`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await mergeFactsOf(d, ctx.repo, req.query.numbers));
    }),
  );
  // Beside the spec: a cursor page of the list with each record's merge facts, in one call.
  router.get(
    `${base}/merge-requests/with-merge-facts`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      const page = parseCursorPage(req.query as Record<string, unknown>) ?? parseCursorPage({ per_page: String(MERGE_FACTS_MAX) })!;
      const found = await listWithMergeFactsPage(d, ctx.repo, req.query.state, page);
      res.setHeader('X-Total-Count', String(found.total));
      sendCursorPage(req, res, deps.publicUrl ?? '', page, found, found.rows);
    }),
  );
  router.get(
    `${base}/merge-requests/:number`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await getMergeRequest(d, ctx.repo, String(req.params.number)));
    }),
  );
  router.patch(
    `${base}/merge-requests/:number`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await announced(deps.announce, ctx, () => updateMergeRequest(d, ctx, String(req.params.number), req.body)));
    }),
  );
  router.get(
    `${base}/merge-requests/:number/commits`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await listMergeRequestCommits(d, ctx.repo, String(req.params.number)));
    }),
  );
  router.post(
    `${base}/merge-requests/:number/comments`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.status(201).json(await announced(deps.announce, ctx, () => addComment(d, ctx.repo, ctx.caller, String(req.params.number), req.body, ctx.requestId)));
    }),
  );
  router.post(
    `${base}/merge-requests/:number/merge`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      const result = await announced(deps.announce, ctx, () => mergeMergeRequest(d, ctx, String(req.params.number), req.body)).catch((err: unknown) => {
        deps.metrics?.failed(err);
        throw err;
      });
      deps.metrics?.merged(result.strategy);
      res.json(result);
    }),
  );
  router.get(
    `${base}/activity`,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      const page = parseCursorPage(req.query as Record<string, unknown>);
      if (!page) return void res.json(await listActivity(d, ctx.repo));
      const found = await listActivityPage(d, ctx.repo, page);
      sendCursorPage(req, res, deps.publicUrl ?? '', page, found, found.rows);
    }),
  );
  return router;
}
