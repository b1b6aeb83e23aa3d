import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, httpStatusOf, toAppError, unavailable } from '@githost/errors';
import type { ObserveRequest } from '@githost/http';
import { canRead } from '@githost/identity';
import { REQUEST_ID_HEADER, type Logger } from '@githost/logging';
import { hasBody } from '../request-checks/body-encoding.js';
import type { CachedAccountsGateway } from '../clients/cached-accounts.js';
import { acceptForwardedClient, clientOf } from '../admission/client-forwarding.js';
import { parseAuthorization } from '../admission/credentials.js';
import { denyAnonymous, denyRepository } from '../admission/access.js';
import { capPermission, denyScope } from '../admission/scopes.js';
import { edgeRequestOf, type EdgeReads } from './reads.js';
import type { GatewayMetrics } from '../metrics.js';
import type { RateClient, RateLimitGate } from '../admission/rate-limit.js';
import type { TargetCheck } from '../request-checks/request-target.js';
import { matchRoute, splitTarget } from '../admission/routes.js';
import { staleAccessAfter } from '../admission/stale-access.js';
import { dropInternalHeaders } from '../forwarding/strip-headers.js';
import type { Forward } from '../forwarding/forward.js';
import { countAnswer } from '../admit-and-forward.js';
import { attachState } from '../request-state.js';

export interface WarmReadDeps {
  accounts: CachedAccountsGateway;
  reads: EdgeReads;
  withinRateLimit: RateLimitGate;
  checkTarget: TargetCheck;
  /** The request log line and latency histogram every request gets. */
  observe: ObserveRequest;
  /** The connection's client address after `trust proxy` (what express calls `req.ip`). */
  addressOf: (req: IncomingMessage) => string;
  internalSecret: string;
  logger: Logger;
  /** A 429 from here is counted as the router's are (refused requests), a forwarded read as theirs are. */
  metrics: Pick<GatewayMetrics, 'refused' | 'forwarded'>;
  /** The app's forwarding (forwarding/forward.ts), given when a browse upstream is configured: a
   *  browse read the edge has no answer for goes to browse from here, admitted as a warm one is. */
  forward?: Forward;
}

/** Takes a request (true) or leaves it to the express app (false), before either has touched it. */
export type WarmReads = (req: IncomingMessage, res: ServerResponse) => boolean;

const REPOS = '/api/repos/';
const GITEA_REPOS = '/api/v1/repos/';

/**
 * Browse reads admitted before express runs (gateway/README.md#warm-reads-before-the-router): what express costs a
 * request (its request and response prototypes, the router's layers) is most of what a kept
 * answer costs. Taken only when everything the normal path would decide is already known in
 * this process and decides the same way: a clean target with no body, a browse route (or a
 * Gitea content read: admission/routes.ts `edgeRead`), no
 * credential or a token whose authentication is cached, the caller's access to the repository
 * cached and allowing the read, and the edge holding an answer still current. Anything else,
 * a refusal included, is left to the app untouched, which answers it as before; so nothing is
 * counted, logged or answered twice. What the normal path does to a request it answers at the
 * edge is done here too: the request id and log line, the latency histogram, the rate limit
 * (with its headers and 429), the edge's own counters.
 *
 * A browse read admitted here that the edge has no answer for (a cold read) is forwarded from
 * here through the app's own forwarding, on the same kept-alive connections, its answer kept for
 * the edge as the app's would be: the client's `x-githost-*` headers dropped, the identity signed,
 * the answer counted as forwarded (docs/decisions/gateway-serves-warm-reads.md#cold-reads-before-the-router).
 */
export function createWarmReads(deps: WarmReadDeps): WarmReads {
  return (req, res) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const url = req.url ?? '';
    if (!(url.startsWith(REPOS) || url.startsWith(GITEA_REPOS)) || hasBody(req)) return false;
    const target = splitTarget(url);
    const route = target && matchRoute(method, target.path, target.query);
    // A Gitea content read the caller may not make is left to the app, whose face answers the
    // refusal in Gitea's shape (docs/decisions/gitea-api.md#warm-reads-at-the-edge).
    if (!route || !(route.surface === 'browse' || route.edgeRead) || !route.repo) return false;
    const credential = parseAuthorization(req.headers.authorization);
    if (credential.kind === 'malformed') return false;
    const authentication = credential.kind === 'token' ? deps.accounts.peekAuthentication(credential.token) : null;
    if (authentication === undefined) return false;
    const principal = authentication?.principal ?? null;
    if (denyAnonymous(route, principal) || denyScope(route, method, authentication)) return false;
    const found = deps.accounts.peekAuthorization(principal, route.repo.owner, route.repo.name);
    if (!found) return false;
    const repo = capPermission(found, authentication);
    if (denyRepository(route, principal, repo) || !canRead(repo.permission)) return false;
    const ifNoneMatch = req.headers['if-none-match'];
    const hit = deps.reads.find(edgeRequestOf(repo, url, route, principal !== null), ifNoneMatch);
    const forward = !hit && route.upstream === 'browse' ? deps.forward : undefined;
    // Last of the checks, so a request left to the app is not checked twice on the way.
    if ((!hit && !forward) || deps.checkTarget(req)) return false;

    deps.observe(req, res, `${route.upstream}/${route.surface}`);
    // In the app's order: the web's signed client forwarding read, then every client `x-githost-*` dropped.
    acceptForwardedClient(req, deps.internalSecret);
    dropInternalHeaders(req.headers);
    const client: RateClient = credential.kind === 'token' ? { token: credential.token } : { anonymous: true, credential: false, address: clientOf(req, deps.addressOf(req)).address };
    const fail = (err: unknown) => {
      const e = toAppError(err);
      deps.logger.error({ err, request_id: req.headers[REQUEST_ID_HEADER] }, hit ? 'warm read failed' : 'cold read failed');
      if (res.headersSent) return void res.destroy();
      // Whatever was down, the client sees one message (server.ts normaliseErrors).
      const answered = e.kind === 'unavailable' ? unavailable('Service unavailable') : e;
      res.statusCode = httpStatusOf(answered.kind);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify(errorBody(answered)));
    };
    deps.withinRateLimit(req, res, client, 'api')
      .then((within) => {
        if (!within) return void deps.metrics.refused.inc({ status: String(res.statusCode) }); // answered 429 already
        if (hit) return void deps.reads.send(hit, method, ifNoneMatch, res);
        const staleOnSuccess = staleAccessAfter(method, target.path, route, principal, repo, deps.accounts);
        const state = attachState(req, { route, principal, repo, requestId: String(req.headers[REQUEST_ID_HEADER]), ...(staleOnSuccess ? { staleOnSuccess } : {}) });
        countAnswer(req, res, deps.metrics);
        return forward!(req, res, fail, state);
      })
      .catch(fail);
    return true;
  };
}
