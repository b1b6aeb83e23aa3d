import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, httpStatusOf, toAppError } from '@githost/errors';
import type { ObserveRequest } from '@githost/http';
import { canRead } from '@githost/identity';
import type { Logger } from '@githost/logging';
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
  /** A 429 from here is counted as the router's are (refused requests). */
  metrics: Pick<GatewayMetrics, 'refused'>;
}

/** Takes a request (true) or leaves it to the express app (false), before either has touched it. */
export type WarmReads = (req: IncomingMessage, res: ServerResponse) => boolean;

const REPOS = '/api/repos/';
const GITEA_REPOS = '/api/v1/repos/';

/**
 * Warm browse reads answered before express runs (gateway/README.md#warm-reads-before-the-router): what express costs a
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
    const hit = deps.reads.find(edgeRequestOf(repo, url), ifNoneMatch);
    // Last of the checks, so a request left to the app is not checked twice on the way.
    if (!hit || deps.checkTarget(req)) return false;

    deps.observe(req, res, `${route.upstream}/${route.surface}`);
    acceptForwardedClient(req, deps.internalSecret);
    const client: RateClient = credential.kind === 'token' ? { token: credential.token } : { anonymous: true, credential: false, address: clientOf(req, deps.addressOf(req)).address };
    deps.withinRateLimit(req, res, client, 'api').then(
      (within) => {
        if (within) deps.reads.send(hit, method, ifNoneMatch, res);
        else deps.metrics.refused.inc({ status: String(res.statusCode) }); // answered 429 already
      },
      (err: unknown) => {
        const e = toAppError(err);
        deps.logger.error({ err, request_id: req.headers['x-request-id'] }, 'warm read failed');
        if (res.headersSent) return void res.destroy();
        res.statusCode = httpStatusOf(e.kind);
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify(errorBody(e)));
      },
    );
    return true;
  };
}
