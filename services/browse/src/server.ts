import client from 'prom-client';
import { grpcClientMetrics } from '@githost/grpc';
import { createHttpApp, createRegistry, finish, serveHttp, type MetricsEndpoint, type ServingHttp } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import { createRefsWatch } from '@githost/refs-watch';
import { createStorageRouter, type StorageRouter } from '@githost/storage-router';
import { StorageReader } from './clients/storage-reader.js';
import type { Config } from './config.js';
import { browseDeps } from './domain/browse.js';
import { ObjectCache } from './domain/object-cache.js';
import type { RepositoryReader } from './domain/ports.js';
import { browseRoutes } from './http/routes.js';

export interface ServerDeps {
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
  /** Shared git-storage clients by shard; built from the configured shards when absent. */
  storage?: StorageRouter;
}

export interface BrowseService extends Service<{ httpPort: number; metricsPort: number }> {
  /** Resolves true once the ref watch of every shard is live (ref snapshots in use), false after `timeoutMs`. */
  refsWatchReady(timeoutMs?: number): Promise<boolean>;
}

/** Stateless: everything it knows comes from git-storage, so any number of copies can run. */
export function createServer(config: Config, deps: ServerDeps = {}): BrowseService {
  const logger = deps.logger ?? createLogger('browse');
  const ownsClient = !deps.storage;
  const storage = deps.storage ?? createStorageRouter(config.storageShards, config.internalSecret);
  const registry = createRegistry('browse');
  const reader: RepositoryReader = new StorageReader(storage, grpcClientMetrics(registry, 'browse'));
  const lookups = new client.Counter({ name: 'githost_browse_cache_lookups_total', help: 'Object cache lookups by result', labelNames: ['result'], registers: [registry] });
  const cache = new ObjectCache(config.cacheBytes, { onLookup: (hit) => lookups.inc({ result: hit ? 'hit' : 'miss' }) });
  new client.Gauge({
    name: 'githost_browse_cache_bytes',
    help: 'Approximate bytes held by the object cache',
    registers: [registry],
    collect() {
      this.set(cache.sizeBytes);
    },
  });
  // One WatchRefs stream per shard: warm ref-addressed reads then need no ListRefs hop.
  const refsWatch = createRefsWatch(storage, { logger });
  const refLookups = new client.Counter({ name: 'githost_browse_ref_lookups_total', help: 'Ref reads by result: hit (snapshot), miss (snapshot loaded), unwatched (no live ref watch: straight to git-storage)', labelNames: ['result'], registers: [registry] });
  const browse = browseDeps(reader, cache, { maxBlobBytes: config.maxBlobBytes, refVersions: refsWatch, onRefLookup: (result) => refLookups.inc({ result }) });
  // GET and HEAD only: no body to parse.
  const app = createHttpApp({ service: 'browse', logger, internalSecret: config.internalSecret, ready: { 'git-storage': () => storage.ready() }, registry, json: false });
  app.use('/api/repos', browseRoutes(browse));
  finish(app);
  let serving: ServingHttp | undefined;
  return {
    async start() {
      serving = await serveHttp(app, registry, config, { service: 'browse', logger, metricsEndpoint: deps.metricsEndpoint });
      return serving.ports;
    },
    refsWatchReady: (timeoutMs) => refsWatch.ready(timeoutMs),
    async stop() {
      await serving?.close();
      serving = undefined;
      refsWatch.close();
      if (ownsClient) storage.close();
    },
  };
}
