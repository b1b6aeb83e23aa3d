import type { IncomingMessage, ServerResponse } from 'node:http';
import { unavailable } from '@githost/errors';
import { canRead, encodeIdentity } from '@githost/identity';
import type { UpstreamName } from '../config.js';
import { hasStreamedBody, limitStreamedBody } from '../request-checks/body-limit.js';
import { clientOf } from '../admission/client-forwarding.js';
import { edgeRequestOf, type EdgeReads } from '../edge-cache/reads.js';
import type { RequestState } from '../request-state.js';
import type { RateLimitGate } from '../admission/rate-limit.js';
import type { GatewayMetrics } from '../metrics.js';
import { sendRefusal } from '../refusals.js';

/** What a failure the handler cannot answer itself is handed to (express's `next`, or the error
 *  answer of a read forwarded before the router: edge-cache/before-router.ts). */
export type PassError = (err?: unknown) => void;

/** An upstream's proxy (forwarding/proxy.ts): node's own request and response, so a read admitted
 *  before the router goes through the same one. */
export type UpstreamHandler = (req: IncomingMessage, res: ServerResponse, next: PassError) => unknown;

export interface ForwardDeps {
  proxies: Map<UpstreamName, UpstreamHandler>;
  reads: EdgeReads;
  internalSecret: string;
  /** Counts a Gitea read the edge answers (admission counted browse's already). */
  withinRateLimit: RateLimitGate;
  metrics: Pick<GatewayMetrics, 'refused'>;
  /** The connection's client address after `trust proxy` (what express calls `req.ip`). */
  addressOf: (req: IncomingMessage) => string;
}

/** Returns what the proxy returns, so its failure reaches the error handler. */
export type Forward = (req: IncomingMessage, res: ServerResponse, next: PassError, state: RequestState) => unknown;

/**
 * Hands an admitted request to its upstream, signed with the identity admission decided; a
 * browse read the edge can answer (a 304, or a kept answer still current) is answered here instead.
 */
export function createForwarding({ proxies, reads, internalSecret, withinRateLimit, metrics, addressOf }: ForwardDeps): Forward {
  return (req, res, next, state) => {
    const { route, repo } = state;
    const proxy = proxies.get(route.upstream);
    if (!proxy) throw unavailable('Service unavailable');
    // Browse reads, and the Gitea face's content reads of a repository the caller may read
    // (docs/decisions/gitea-api.md#warm-reads-at-the-edge): the same keys, the same refs rule.
    // Always set on a request a server read (node types them optional for client requests).
    const url = req.url ?? '';
    const method = req.method ?? '';
    const edgeRead = route.upstream === 'browse' || (route.edgeRead === true && state.rateClient !== undefined);
    if (reads.active && edgeRead && repo && canRead(repo.permission)) {
      const request = edgeRequestOf(repo, url, route, state.principal !== null);
      const ifNoneMatch = req.headers['if-none-match'];
      const hit = reads.find(request, ifNoneMatch);
      if (hit) {
        state.answeredAtEdge = true;
        if (!state.rateClient) return void reads.send(hit, method, ifNoneMatch, res);
        return withinRateLimit(req, res, state.rateClient, 'api').then((within) => {
          if (within) reads.send(hit, method, ifNoneMatch, res);
          else metrics.refused.inc({ status: String(res.statusCode) }); // answered 429 already
        });
      }
      reads.missed(ifNoneMatch);
      Object.assign(state, reads.pending(request, method));
    }
    // Signed only now: an answer from the edge goes nowhere. Services trust the signed identity
    // alone; the raw token goes no further than the edge, except to the OAuth2 provider.
    // The provider's Authorization header is its client's credential (docs/decisions/oauth2-provider.md#paths);
    // Gitea's API sends the caller's back through the edge (docs/decisions/gitea-api.md#a-face-over-the-api).
    if (route.surface !== 'oauth' && route.surface !== 'gitea') delete req.headers.authorization;
    Object.assign(req.headers, encodeIdentity({ principal: state.principal, repo, request_id: state.requestId, issued_at: Date.now(), client: clientOf(req, addressOf(req)) }, internalSecret));
    state.forwardedTo = route.upstream;
    if (route.surface !== 'git' && hasStreamedBody(req)) {
      limitStreamedBody(req, () => {
        if (res.headersSent) return;
        res.setHeader('Connection', 'close');
        sendRefusal(req, res, { message: 'Request body too large', details: undefined }, 413);
      });
    }
    return proxy(req, res, next);
  };
}
