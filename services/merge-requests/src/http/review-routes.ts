import { express, route } from '@githost/http';
import type { GitPort, ReviewRequestStore } from '../domain/ports.js';
import { listReviewRequests, requestReviews, withdrawReviewRequests } from '../domain/review-requests.js';
import { listReviews, submitReview, type ReviewDeps } from '../domain/reviews.js';
import { announced, type Announce } from './announce.js';
import { contextOf } from './routes.js';

export interface ReviewRouteDeps extends Omit<ReviewDeps, 'git'> {
  requests: ReviewRequestStore;
  /** git access on the repository's shard, tagged with the request's id. */
  gitFor(requestId: string, shard: string): GitPort;
  /** Every write is announced before it answers (./announce.ts); none when absent (tests). */
  announce?: Announce;
}

/** services/merge-requests/README.md#reviews. The gateway forwards these paths unchanged (auth required but on GET). */
export function reviewRoutes(deps: ReviewRouteDeps): express.Router {
  const router = express.Router();
  const path = '/api/repos/:owner/:repo/merge-requests/:number/reviews';
  const domain = (res: express.Response) => {
    const ctx = contextOf(res);
    return { ctx, deps: { ...deps, git: deps.gitFor(ctx.requestId, ctx.repo?.shard ?? '') } };
  };

  router.post(
    path,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.status(201).json(await announced(deps.announce, ctx, () => submitReview(d, ctx.repo, ctx.caller, String(req.params.number), req.body, ctx.requestId)));
    }),
  );
  router.get(
    path,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await listReviews(d, ctx.repo, String(req.params.number)));
    }),
  );
  // Beside the spec (services/merge-requests/README.md#review-requests).
  const requested = '/api/repos/:owner/:repo/merge-requests/:number/requested-reviewers';
  router.get(
    requested,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await listReviewRequests(d, ctx.repo, String(req.params.number)));
    }),
  );
  router.post(
    requested,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.status(201).json(await announced(deps.announce, ctx, () => requestReviews(d, ctx.repo, ctx.caller, String(req.params.number), req.body, ctx.requestId)));
    }),
  );
  router.delete(
    requested,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await announced(deps.announce, ctx, () => withdrawReviewRequests(d, ctx.repo, ctx.caller, String(req.params.number), req.body, ctx.requestId)));
    }),
  );
  return router;
}
