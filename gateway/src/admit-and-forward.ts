import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Admit } from './admission/admit.js';
import type { Forward } from './forwarding/forward.js';
import type { GatewayMetrics } from './metrics.js';
import { attachState, stateOf } from './request-state.js';

/** Every request past the edge's own endpoints: admitted, then forwarded; each answer counted as
 *  forwarded, refused or answered at the edge. */
export function admitAndForward(admit: Admit, forward: Forward, metrics: GatewayMetrics): RequestHandler {
  return (req, res, next) => {
    countAnswer(req, res, metrics);
    admit(req, res)
      .then((admission) => {
        if (!admission) return undefined; // answered already (429)
        return forward(req, res, next, attachState(req, admission));
      })
      .catch(next);
  };
}

/** Counts the answer once it is out: forwarded (by upstream and status), refused, or neither when
 *  the edge answered it (counted as an edge hit). */
export function countAnswer(req: IncomingMessage, res: ServerResponse, metrics: Pick<GatewayMetrics, 'forwarded' | 'refused'>): void {
  res.on('finish', () => {
    const state = stateOf(req);
    if (state?.answeredAtEdge) return;
    if (state?.forwardedTo) metrics.forwarded.inc({ upstream: state.forwardedTo, status: String(res.statusCode) });
    else metrics.refused.inc({ status: String(res.statusCode) });
  });
}
