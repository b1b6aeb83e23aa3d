import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { unavailable } from '@githost/errors';
import { canRead, encodeIdentity } from '@githost/identity';
import { DEFAULT_SHARD } from '@githost/storage-router';
import type { UpstreamName } from './config.js';
import { hasStreamedBody, limitStreamedBody } from './body-limit.js';
import { clientOf } from './client-forwarding.js';
import { answerFromEdge, type EdgeAnswers } from './edge-answers.js';
import type { EdgeRequest, EdgeValidators } from './edge-validators.js';
import type { GatewayMetrics } from './metrics.js';
import type { RequestState } from './request-state.js';

export interface ForwardDeps {
  proxies: Map<UpstreamName, RequestHandler>;
  edge?: EdgeValidators;
  answers?: EdgeAnswers;
  metrics: GatewayMetrics;
  internalSecret: string;
}

/** Returns what the proxy returns, so its failure reaches the error handler. */
export type Forward = (req: Request, res: Response, next: NextFunction, state: RequestState) => unknown;

/**
 * Hands an admitted request to its upstream, signed with the identity admission decided; a
 * browse read the edge can answer (a 304, or a kept answer still current) is answered here instead.
 */
export function createForwarding({ proxies, edge, answers, metrics, internalSecret }: ForwardDeps): Forward {
  return (req, res, next, state) => {
    const { route, repo } = state;
    const proxy = proxies.get(route.upstream);
    if (!proxy) throw unavailable('Service unavailable');
    if ((edge || answers) && route.upstream === 'browse' && repo && canRead(repo.permission)) {
      const request: EdgeRequest = { shard: repo.shard || DEFAULT_SHARD, repoId: repo.id, defaultBranch: repo.default_branch, private: repo.private, url: req.url };
      const ifNoneMatch = req.headers['if-none-match'];
      const hit = edge?.notModified(request, ifNoneMatch);
      if (ifNoneMatch) metrics.edgeValidators.inc({ result: hit ? 'hit' : 'miss' });
      if (hit) {
        state.answeredAtEdge = true;
        res.statusCode = 304;
        res.setHeader('ETag', hit.etag);
        res.setHeader('Cache-Control', hit.cacheControl);
        res.end();
        return undefined;
      }
      const kept = answers?.lookup(request);
      if (answers) metrics.edgeAnswers.inc({ result: kept ? 'hit' : 'miss' });
      if (kept) {
        state.answeredAtEdge = true;
        answerFromEdge(req.method, ifNoneMatch, kept, res);
        return undefined;
      }
      state.edgePending = edge?.pending(request);
      if (answers && req.method === 'GET') state.answerPending = answers.pending(request);
    }
    // Signed only now: an answer from the edge goes nowhere. Services trust the signed identity
    // alone; the raw token goes no further than the edge.
    delete req.headers.authorization;
    Object.assign(req.headers, encodeIdentity({ principal: state.principal, repo, request_id: state.requestId, issued_at: Date.now(), client: clientOf(req) }, internalSecret));
    state.forwardedTo = route.upstream;
    if (route.surface !== 'git' && hasStreamedBody(req)) {
      limitStreamedBody(req, () => {
        if (res.headersSent) return;
        res.setHeader('Connection', 'close');
        res.status(413).json({ error: 'Request body too large' });
      });
    }
    return proxy(req, res, next);
  };
}
