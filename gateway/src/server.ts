import { Agent, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError, toAppError, tooLarge, unauthenticated, unavailable } from '@githost/errors';
import { createHttpApp, finish, listen, type Listening } from '@githost/http';
import { canRead, encodeIdentity, type RepoContext } from '@githost/identity';
import { createLogger, REQUEST_ID_HEADER, type Logger } from '@githost/logging';
import type { Config, UpstreamName } from './config.js';
import { grpcAccountsGateway, type AccountsGateway, type Authentication } from './clients/accounts.js';
import { cachedAccounts, DEFAULT_TTLS, isRejection, type CacheTtls } from './clients/cached-accounts.js';
import { parseAuthorization, type Credential } from './credentials.js';
import { denyAnonymous, denyRepository, type Denial } from './domain/access.js';
import { capPermission, denyScope } from './domain/scopes.js';
import { matchRoute, splitTarget, type RouteMatch } from './routes.js';
import { declaredTooLarge, hasStreamedBody, limitStreamedBody } from './body-limit.js';
import { upstreamProxy } from './proxy.js';
import { gitStorageTarget } from './git-storage-shards.js';
import { createStorageRouter, DEFAULT_SHARD, singleShard, type StorageRouter } from '@githost/storage-router';
import { createRefsWatch, type RefsWatch } from '@githost/refs-watch';
import { createEdgeValidators, DEFAULT_EDGE_ENTRIES, type EdgeRequest, type Pending, type RefVersions } from './edge-validators.js';
import { createGatewayMetrics } from './metrics.js';
import { stripInternalHeaders } from './strip-headers.js';
import { staleAccessAfter } from './stale-access.js';
import { adoptServer } from './adopt-server.js';
import { createRateLimitGate, markChallenged, type RateClient } from './rate-limit.js';
import { findOpenApiDocument, OPENAPI_PATH, openApiHandler } from './openapi.js';
import { refuseMalformedTarget } from './request-target.js';
import { refuseUndecodableBody } from './body-encoding.js';
import { answerOversizedRequests } from './oversized-requests.js';

export interface GatewayDeps {
  logger?: Logger;
  /** Replaces the gRPC accounts client (it is still wrapped in the cache). */
  accounts?: AccountsGateway;
  cacheTtls?: Partial<CacheTtls>;
  /** A server already listening on the public port: the gateway serves on it instead of binding
   *  `config.port` (the launcher holds the port from before the services start). */
  server?: HttpServer;
  /** The git-storage ref watch: with it, the gateway answers conditional browse reads whose
   *  refs have not changed (304) itself. Without it, every browse request goes to browse. */
  refVersions?: RefVersions;
}

export interface Service {
  start(): Promise<{ httpPort: number }>;
  stop(): Promise<void>;
}

const CHALLENGE = 'Basic realm="githost"';
const API_TIMEOUT_MS = 120_000;

export function createServer(config: Config, deps: GatewayDeps = {}): Service {
  const logger = deps.logger ?? createLogger('gateway');
  const metrics = createGatewayMetrics();
  const accounts = cachedAccounts(deps.accounts ?? grpcAccountsGateway(config.accountsGrpcAddress, metrics.grpcClient), { ...DEFAULT_TTLS, ...deps.cacheTtls }, (cache, result) =>
    metrics.accountsCache.inc({ cache, result }),
  );
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 64 });
  /** Cache entries a request's success makes stale, dropped when its 2xx answer arrives. */
  const staleOnSuccess = new WeakMap<IncomingMessage, () => void>();
  const edgeEntries = config.edgeCacheEntries ?? DEFAULT_EDGE_ENTRIES;
  // The watch streams every ref change of every shard: not kept when the edge keeps nothing.
  let storageRouter: StorageRouter | undefined;
  let refsWatch: RefsWatch | undefined;
  if (!deps.refVersions && edgeEntries > 0 && config.gitStorageGrpcShards) {
    storageRouter = createStorageRouter(config.gitStorageGrpcShards);
    refsWatch = createRefsWatch(storageRouter, { logger });
  }
  const refVersions = deps.refVersions ?? refsWatch;
  const edge = refVersions ? createEdgeValidators(refVersions, edgeEntries) : undefined;
  /** Browse requests whose 200 answer's validators the edge keeps, with the refs version read before forwarding. */
  const edgePending = new WeakMap<IncomingMessage, Pending>();
  const onResponse = (req: IncomingMessage, proxyRes: IncomingMessage) => {
    const status = proxyRes.statusCode ?? 0;
    if (status >= 200 && status < 300) staleOnSuccess.get(req)?.();
    const pending = edge && status === 200 ? edgePending.get(req) : undefined;
    const { etag, 'cache-control': cacheControl } = proxyRes.headers;
    if (pending && etag && cacheControl) edge!.store(pending, { etag, cacheControl });
  };

  /** The shard of each admitted git transport request's repository, as accounts answered for it. */
  const gitShards = new WeakMap<IncomingMessage, string>();
  const shardOf = (req: IncomingMessage) => gitShards.get(req) ?? DEFAULT_SHARD;

  const proxies = new Map<UpstreamName, RequestHandler>();
  for (const [name, target] of Object.entries(config.upstreams) as [UpstreamName, string | undefined][]) {
    if (!target) continue;
    const router = name === 'git-storage' ? gitStorageTarget(config.gitStorageShards ?? singleShard(target), shardOf) : undefined;
    proxies.set(name, upstreamProxy(name, { target, router, agent, logger, timeoutMs: name === 'git-storage' ? undefined : API_TIMEOUT_MS, onResponse }));
  }

  const withinRateLimit = createRateLimitGate(config.rateLimits ?? { perTokenPerMinute: 0, anonymousPerMinute: 0 });
  const openapi = openApiHandler(logger);

  const app = createHttpApp({ service: 'gateway', logger, ready: () => accounts.reachable(), json: false, registry: metrics.registry });
  app.set('trust proxy', config.trustProxy ?? false);
  app.use(stripInternalHeaders);
  app.use(refuseMalformedTarget(findOpenApiDocument()));
  app.use(refuseUndecodableBody);
  app.get(OPENAPI_PATH, openapi);
  app.use(gate);
  app.use(normaliseErrors);
  finish(app);

  /** Authenticates, routes, checks access and forwards; every refusal is an AppError. */
  async function admit(req: Request, res: Response): Promise<{ route: RouteMatch; repo: RepoContext | null } | undefined> {
    const target = splitTarget(req.url);
    const route = target && matchRoute(req.method, target.path, target.query);
    // Low-cardinality label for the shared HTTP latency histogram: which service, which surface.
    if (route) res.locals.routeLabel = `${route.upstream}/${route.surface}`;
    const requestId = String(req.headers[REQUEST_ID_HEADER]);

    // CONTRACT §9 Access: a present but invalid credential is 401 everywhere, before any lookup.
    let invalidCredential: AppError | undefined;
    const credential = parseAuthorization(req.headers.authorization);
    const refuse = (denial: Denial): never => {
      if (denial.challenge) res.setHeader('WWW-Authenticate', CHALLENGE);
      // A git client's credential-less first leg: it comes back with its token, so the address's
      // git budget gives this one back (README "Rate limits").
      if (denial.challenge && credential.kind === 'none' && route?.surface === 'git') markChallenged(res);
      throw denial.error;
    };
    const authentication = await authenticate(credential, requestId).catch((err: unknown) => {
      if (err instanceof AppError && err.kind === 'unauthenticated') {
        invalidCredential = err;
        return null;
      }
      throw err;
    });
    const principal = authentication?.principal ?? null;
    // Counted before anything else is looked up; a bad credential counts against the address.
    const client: RateClient = principal && credential.kind === 'token' ? { token: credential.token } : { anonymous: true, credential: credential.kind !== 'none' };
    if (!(await withinRateLimit(req, res, client, route?.surface === 'git' ? 'git' : 'api'))) return undefined;
    if (invalidCredential) refuse({ error: invalidCredential, challenge: route?.surface === 'git' });
    if (!route) throw new AppError('not_found', 'Not found');
    const anonymousDenial = denyAnonymous(route, principal);
    if (anonymousDenial) refuse(anonymousDenial);
    const scopeDenial = denyScope(route, req.method, authentication);
    if (scopeDenial) refuse(scopeDenial);
    if (route.surface !== 'git' && declaredTooLarge(req)) throw tooLarge('Request body too large');

    let repo: RepoContext | null = null;
    if (route.repo) {
      const { owner, name } = route.repo;
      const lookup = (fresh: boolean) =>
        accounts.authorize(principal, owner, name, requestId, fresh).then(
          (found) => capPermission(found, authentication),
          (err: unknown) => {
            // A name accounts rejects as malformed cannot exist either.
            if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return null;
            // A user suspended since their token's answer was cached (README "Users and tokens").
            if (err instanceof AppError && err.kind === 'unauthenticated') refuse({ error: unauthenticated(), challenge: route.surface === 'git' });
            throw err;
          },
        );
      repo = await lookup(false);
      let repoDenial = denyRepository(route, principal, repo);
      // A cached answer may predate a grant (a collaborator just added): deny only on a fresh one.
      // Not-found answers are never cached, so they are fresh already.
      if (repoDenial && repo !== null) {
        repo = await lookup(true);
        repoDenial = denyRepository(route, principal, repo);
      }
      if (repoDenial) refuse(repoDenial);
    }

    const forget = staleAccessAfter(req.method, target!.path, route, principal, repo, accounts);
    if (forget) staleOnSuccess.set(req, forget);

    // Services trust the signed identity alone; the raw token goes no further than the edge.
    delete req.headers.authorization;
    Object.assign(req.headers, encodeIdentity({ principal, repo, request_id: requestId, issued_at: Date.now() }, config.internalSecret));
    return { route, repo };
  }

  async function authenticate(credential: Credential, requestId: string): Promise<Authentication | null> {
    if (credential.kind === 'none') return null;
    if (credential.kind === 'malformed') throw unauthenticated();
    try {
      return await accounts.authenticate(credential.token, requestId);
    } catch (err) {
      if (err instanceof AppError && isRejection(err)) throw unauthenticated();
      throw err;
    }
  }

  function gate(req: Request, res: Response, next: NextFunction): void {
    let upstream: UpstreamName | undefined;
    let atEdge = false;
    res.on('finish', () => {
      if (atEdge) return; // counted as an edge hit
      if (upstream) metrics.forwarded.inc({ upstream, status: String(res.statusCode) });
      else metrics.refused.inc({ status: String(res.statusCode) });
    });
    admit(req, res).then((admitted) => {
      if (!admitted) return undefined; // answered already (429)
      const { route, repo } = admitted;
      const proxy = proxies.get(route.upstream);
      if (!proxy) throw unavailable('Service unavailable');
      if (edge && route.upstream === 'browse' && repo && canRead(repo.permission)) {
        const request: EdgeRequest = { shard: repo.shard || DEFAULT_SHARD, repoId: repo.id, defaultBranch: repo.default_branch, private: repo.private, url: req.url };
        const ifNoneMatch = req.headers['if-none-match'];
        const hit = edge.notModified(request, ifNoneMatch);
        if (ifNoneMatch) metrics.edgeValidators.inc({ result: hit ? 'hit' : 'miss' });
        if (hit) {
          atEdge = true;
          res.statusCode = 304;
          res.setHeader('ETag', hit.etag);
          res.setHeader('Cache-Control', hit.cacheControl);
          res.end();
          return undefined;
        }
        const pending = edge.pending(request);
        if (pending) edgePending.set(req, pending);
      }
      upstream = route.upstream;
      if (upstream === 'git-storage' && repo?.shard) gitShards.set(req, repo.shard);
      if (route.surface !== 'git' && hasStreamedBody(req)) {
        limitStreamedBody(req, () => {
          if (res.headersSent) return;
          res.setHeader('Connection', 'close');
          res.status(413).json({ error: 'Request body too large' });
        });
      }
      return proxy(req, res, next);
    }).catch(next);
  }

  let listening: Listening | undefined;
  return {
    async start() {
      listening = deps.server ? adoptServer(deps.server, app) : await listen(app, config.port);
      answerOversizedRequests(listening.server);
      // A large push or clone may take longer than node's default 5-minute request timeout.
      listening.server.requestTimeout = 0;
      logger.info({ port: listening.port }, 'gateway listening');
      return { httpPort: listening.port };
    },
    async stop() {
      await listening?.close();
      listening = undefined;
      accounts.close();
      refsWatch?.close();
      storageRouter?.close();
      agent.destroy();
    },
  };
}

/** Whatever was down (accounts, a service), the client sees one message (CONTRACT §4). */
const normaliseErrors: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
  const e = toAppError(err);
  if (e.kind === 'unavailable' && e.message !== 'Service unavailable') next(unavailable('Service unavailable', e));
  else next(err);
};
