import { type IncomingMessage, type RequestListener, type Server as HttpServer } from 'node:http';
import proxyaddr from 'proxy-addr';
import type { ErrorRequestHandler } from 'express';
import { toAppError, unavailable } from '@githost/errors';
import { createHttpApp, finish, listen, requestObserver, serveMetrics, type Listening, type MetricsEndpoint, type MetricsListening } from '@githost/http';
import { bindingPort } from '@githost/config';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import { createUpstreamAgent } from './forwarding/upstream-agent.js';
import type { Config } from './config.js';
import { grpcAccountsGateway, type AccountsGateway } from './clients/accounts.js';
import { cachedAccounts, DEFAULT_TTLS, type CacheTtls } from './clients/cached-accounts.js';
import { createStorageRouter, type StorageRouter } from '@githost/storage-router';
import { createRefsWatch, type RefsWatch } from '@githost/refs-watch';
import { createEdgeValidators, DEFAULT_EDGE_ENTRIES, type RefVersions } from './edge-cache/validators.js';
import { createEdgeAnswers, DEFAULT_EDGE_CACHE_BYTES } from './edge-cache/answers.js';
import { createGatewayMetrics, gaugeEdgeAnswerBytes } from './metrics.js';
import { stripInternalHeaders } from './forwarding/strip-headers.js';
import { acceptClientForwarding } from './admission/client-forwarding.js';
import { adoptServer } from './adopt-server.js';
import { createRateLimitGate } from './admission/rate-limit.js';
import { createLimitStores } from '@githost/rate-limits';
import { findOpenApiDocument, OPENAPI_PATH, openApiHandler } from './openapi.js';
import { createAdmission } from './admission/admit.js';
import { createUpstreamProxies } from './forwarding/upstreams.js';
import { createPartnerChecks } from './forwarding/partners.js';
import { createForwarding } from './forwarding/forward.js';
import { lfsRefusals } from './refusals.js';
import { admitAndForward } from './admit-and-forward.js';
import { createTargetCheck, refuseMalformedTarget } from './request-checks/request-target.js';
import { createEdgeReads } from './edge-cache/reads.js';
import { createWarmReads } from './edge-cache/before-router.js';
import { refuseUndecodableBody } from './request-checks/body-encoding.js';
import { answerOversizedRequests } from './request-checks/oversized-requests.js';
import { DEFAULT_BODY_TIMEOUT_MS, limitBodySilence } from './request-checks/body-timeout.js';

export interface ServerDeps {
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
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

export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger('gateway');
  const metrics = createGatewayMetrics();
  const accounts = cachedAccounts(deps.accounts ?? grpcAccountsGateway(config.accountsGrpcAddress, config.internalSecret, metrics.grpcClient), { ...DEFAULT_TTLS, ...deps.cacheTtls }, (cache, result) =>
    metrics.accountsCache.inc({ cache, result }),
  );
  const agent = createUpstreamAgent();
  const edgeEntries = config.edgeCacheEntries ?? DEFAULT_EDGE_ENTRIES;
  const edgeBytes = config.edgeCacheBytes ?? DEFAULT_EDGE_CACHE_BYTES;
  // The watch streams every ref change of every shard: not kept when the edge keeps nothing.
  let storageRouter: StorageRouter | undefined;
  let refsWatch: RefsWatch | undefined;
  if (!deps.refVersions && (edgeEntries > 0 || edgeBytes > 0) && config.gitStorageGrpcShards) {
    storageRouter = createStorageRouter(config.gitStorageGrpcShards, config.internalSecret);
    refsWatch = createRefsWatch(storageRouter, { logger });
  }
  const watched = deps.refVersions ?? refsWatch;
  // Without facts versions nothing that shows a repository's merge requests is kept (validators.ts versionOf).
  const refVersions = watched && config.edgeKeepsPulls === false ? { version: watched.version.bind(watched) } : watched;
  const edge = refVersions ? createEdgeValidators(refVersions, edgeEntries) : undefined;
  // Without a watch, only answers that can never change (immutable) are kept.
  const answers = edgeBytes > 0 ? createEdgeAnswers(refVersions ?? { version: () => undefined }, edgeBytes) : undefined;
  if (answers) gaugeEdgeAnswerBytes(metrics, () => answers.bytes);

  const limitStores = createLimitStores({ ...config.rateLimitStore, logger, registry: metrics.registry, service: 'gateway' });
  const withinRateLimit = createRateLimitGate(config.rateLimits ?? { perTokenPerMinute: 0, anonymousPerMinute: 0 }, limitStores);
  const admit = createAdmission({ accounts, withinRateLimit, site: Boolean(config.upstreams.web), internalSecret: config.internalSecret });
  const partners = createPartnerChecks(config, logger, metrics);
  const proxies = createUpstreamProxies(config, { agent, logger, edge, answers, metrics, partners });
  const reads = createEdgeReads(edge, answers, metrics);
  const checkTarget = createTargetCheck(findOpenApiDocument());

  const app = createHttpApp({ service: 'gateway', logger, ready: { accounts: () => accounts.reachable() }, json: false, registry: metrics.registry });
  app.set('trust proxy', config.trustProxy ?? false);
  // express's `req.ip`, computed the same way for requests taken before the router.
  const addressOf = (req: IncomingMessage) => proxyaddr(req, app.get('trust proxy fn') as (addr: string, i: number) => boolean);
  const forward = createForwarding({ proxies, reads, internalSecret: config.internalSecret, withinRateLimit, metrics, addressOf });
  app.use(limitBodySilence(config.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS));
  app.use(acceptClientForwarding(config.internalSecret));
  app.use(stripInternalHeaders);
  app.use(refuseMalformedTarget(checkTarget));
  app.use(refuseUndecodableBody);
  app.get(OPENAPI_PATH, openApiHandler(logger));
  app.use(admitAndForward(admit, forward, metrics));
  app.use(normaliseErrors);
  app.use(lfsRefusals);
  finish(app);
  const warmReads = reads.active
    ? createWarmReads({ accounts, reads, withinRateLimit, checkTarget, observe: requestObserver(app), addressOf, internalSecret: config.internalSecret, logger, metrics, ...(proxies.has('browse') ? { forward } : {}) })
    : undefined;
  const handle: RequestListener = warmReads ? (req, res) => void (warmReads(req, res) || app(req, res)) : app;

  let listening: Listening | undefined;
  let metricsListening: MetricsListening | undefined;
  return {
    async start() {
      listening = deps.server ? adoptServer(deps.server, handle) : await bindingPort('PORT', config.port, () => listen(handle, config.port, config.bindHost));
      answerOversizedRequests(listening.server);
      // A large push or clone may take longer than node's default 5-minute request timeout.
      listening.server.requestTimeout = 0;
      // Never on the public port (CONTRACT §8).
      metricsListening = await serveMetrics(metrics.registry, config.metricsPort, config.bindHost, deps.metricsEndpoint);
      partners.forEach((check) => check.start());
      logger.info({ port: listening.port }, 'gateway listening');
      return { httpPort: listening.port, metricsPort: metricsListening.port };
    },
    async stop() {
      partners.forEach((check) => check.stop());
      await Promise.all([listening?.close(), metricsListening?.close()]);
      listening = undefined;
      accounts.close();
      refsWatch?.close();
      storageRouter?.close();
      agent.destroy();
      await limitStores.close();
    },
  };
}

/** Whatever was down (accounts, a service), the client sees one message (CONTRACT §4). */
const normaliseErrors: ErrorRequestHandler = (err: unknown, _req, _res, next) => {
  const e = toAppError(err);
  if (e.kind === 'unavailable' && e.message !== 'Service unavailable') next(unavailable('Service unavailable', e));
  else next(err);
};
