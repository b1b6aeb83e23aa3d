import { express, route } from '@githost/http';
import type { GitPort } from '../domain/ports.js';
import { listReviews, submitReview, type ReviewDeps } from '../domain/reviews.js';
import { contextOf } from './routes.js';

export interface ReviewRouteDeps extends Omit<ReviewDeps, 'git'> {
  /** git access on the repository's shard, tagged with the request's id. */
  gitFor(requestId: string, shard: string): GitPort;
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
      res.status(201).json(await submitReview(d, ctx.repo, ctx.caller, String(req.params.number), req.body, ctx.requestId));
    }),
  );
  router.get(
    path,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await listReviews(d, ctx.repo, String(req.params.number)));
    }),
  );
  return router;
}
