import { notFound } from '@githost/errors';
import { express, route, type Request } from '@githost/http';
import type { EventRelay, GitPort } from '../domain/ports.js';
import { createStatus, getCombinedStatus, listStatuses, pageOf } from '../domain/statuses.js';
import type { StatusStore } from '../domain/ports.js';
import { contextOf } from './routes.js';

export interface StatusRouteDeps {
  statuses: StatusStore;
  relay: EventRelay;
  /** git access on the repository's shard, tagged with the request's id. */
  gitFor(requestId: string, shard: string): GitPort;
}

// `{ref}` may hold slashes (a branch `feature/x`): the whole run between `commits/` and the last
// segment is the ref (the gateway routes `.../status(es)` here before browse sees it).
const LIST = /^\/api\/repos\/[^/]+\/[^/]+\/commits\/(.+)\/statuses$/;
const COMBINED = /^\/api\/repos\/[^/]+\/[^/]+\/commits\/(.+)\/status$/;
const CREATE = /^\/api\/repos\/[^/]+\/[^/]+\/statuses\/([^/]+)$/;

/** The captured path part, percent-decoded once (CONTRACT §9 browse rule). */
function captured(req: Request, pattern: RegExp, unknown: (raw: string) => Error): string {
  const raw = pattern.exec(req.path)?.[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw unknown(raw);
  }
}

/** services/merge-requests/README.md#commit-statuses. */
export function statusRoutes(deps: StatusRouteDeps): express.Router {
  const router = express.Router();
  const domain = (res: express.Response) => {
    const ctx = contextOf(res);
    return { ctx, deps: { statuses: deps.statuses, relay: deps.relay, git: deps.gitFor(ctx.requestId, ctx.repo?.shard ?? '') } };
  };
  const refNotFound = (raw: string) => notFound(`Ref not found: ${raw}`);

  router.post(
    CREATE,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      const sha = captured(req, CREATE, (raw) => notFound(`Commit not found: ${raw}`));
      res.status(201).json(await createStatus(d, ctx.repo, ctx.caller, sha, req.body, ctx.requestId));
    }),
  );
  router.get(
    LIST,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      const ref = captured(req, LIST, refNotFound);
      res.json(await listStatuses(d, ctx.repo, ref, pageOf(req.query as Record<string, unknown>)));
    }),
  );
  router.get(
    COMBINED,
    route(async (req, res) => {
      const { ctx, deps: d } = domain(res);
      res.json(await getCombinedStatus(d, ctx.repo, captured(req, COMBINED, refNotFound)));
    }),
  );
  return router;
}
