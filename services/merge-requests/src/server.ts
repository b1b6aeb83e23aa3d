import path from 'node:path';
import { createEventBus, startOutboxRelay, type EventBus, type Relay, type Subscription } from '@githost/bus';
import { openServiceDatabase, startPruneLoop, type Database, type PruneLoop } from '@githost/db';
import { waitForReady } from '@githost/grpc';
import { createHttpApp, createRegistry, finish, serveHttp, type MetricsEndpoint, type ServingHttp } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import { createAccountsClient, type AccountsServiceClient } from '@githost/protos';
import { announceChange } from '@githost/refs-watch';
import { createStorageRouter, type StorageRouter } from '@githost/storage-router';
import { AccountsUserDirectory } from './clients/accounts.js';
import { GitStorageClient } from './clients/git-storage.js';
import { DiffCache } from './clients/diff-cache.js';
import { MergeabilityCache } from './clients/mergeability-cache.js';
import type { Config } from './config.js';
import { MIGRATIONS } from './db/migrations.js';
import { PgMergeRequestStore } from './db/merge-request-store.js';
import { subscribeToRepositoryEvents } from './consumer/event-consumer.js';
import { PgReviewStore } from './db/review-store.js';
import { PgStatusStore } from './db/status-store.js';
import { AccountsRefPolicySource } from './clients/ref-policy.js';
import { reviewRoutes } from './http/review-routes.js';
import { mergeRequestRoutes } from './http/routes.js';
import { statusRoutes } from './http/status-routes.js';
import { mergeMetrics, outboxBacklogGauge } from './metrics.js';
import { startRecoveryLoop, type RecoveryOptions } from './recovery-loop.js';

const HANDLED_EVENTS_PRUNE_EVERY_MS = 60 * 60_000;

export interface ServerDeps {
  /** A shared bus (the launcher's in-process one); built from AMQP_URL when absent. */
  bus?: EventBus;
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
  /** git-storage clients by shard; built from the configured shards when absent. */
  storage?: StorageRouter;
  accounts?: AccountsServiceClient;
  recovery?: RecoveryOptions;
}

export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger('merge-requests');
  const storage = deps.storage ?? createStorageRouter(config.gitStorageShards, config.internalSecret);
  const accounts = deps.accounts ?? createAccountsClient(config.accountsAddr, config.internalSecret);
  const bus = deps.bus ?? createEventBus({ amqpUrl: config.amqpUrl, exchange: config.eventsExchange, logger });
  const registry = createRegistry('merge-requests');
  const metrics = mergeMetrics(registry);
  const git = new GitStorageClient(storage, '', undefined, metrics.grpcClient);
  const mergeability = new MergeabilityCache();
  const diffs = new DiffCache(config.diffCacheBytes);
  let db: Database | undefined;
  let relay: Relay | undefined;
  // Registered once; reads whichever relay is running at scrape time (none before start()).
  outboxBacklogGauge(registry, { backlog: async () => (relay ? relay.backlog() : 0) });
  let recovery: ReturnType<typeof startRecoveryLoop> | undefined;
  let serving: ServingHttp | undefined;
  let subscription: Subscription | undefined;
  let pruning: PruneLoop | undefined;

  return {
    async start() {
      db = await openServiceDatabase({
        url: config.databaseUrl,
        dataDir: config.databaseUrl ? undefined : path.join(config.dataDir, 'db', 'merge-requests'),
        schema: 'merge_requests',
        migrations: MIGRATIONS,
        upkeep: { warn: (fields, message) => logger.warn(fields, message), info: (fields, message) => logger.info(fields, message) },
      });
      const database = db;
      const outbox = startOutboxRelay({ db: database, bus, logger });
      relay = outbox;
      const store = new PgMergeRequestStore(database);
      // Handled events stop mattering after days (docs/decisions/list-paging.md#retention): pruned hourly, in batches.
      pruning = startPruneLoop({
        everyMs: HANDLED_EVENTS_PRUNE_EVERY_MS,
        firstAfterMs: 60_000,
        pass: () => store.pruneHandledEvents(config.handledEventsRetentionDays),
        onError: (err) => logger.warn({ err }, 'pruning handled events failed; the next pass tries again'),
        onDone: (pruned, ms) => logger.info({ pruned, duration_ms: Math.round(ms) }, 'handled events pruned'),
      });
      const users = new AccountsUserDirectory(accounts, metrics.grpcClient);
      // Every change of what a merge request list shows, announced before it answers (docs/decisions/pulls-at-the-edge.md).
      const announce = (shard: string, repositoryId: string, requestId?: string) => announceChange(storage, shard, repositoryId, { requestId, logger, metrics: metrics.grpcClient });
      recovery = startRecoveryLoop({ store, relay: outbox, gitOn: (shard) => git.onShard(shard), announce }, logger, deps.recovery, metrics);
      await recovery.first;
      subscription = await subscribeToRepositoryEvents(bus, { store, users, relay: outbox, gitOn: (shard) => git.onShard(shard), announce }, logger, config.eventsQueue);

      const app = createHttpApp({
        service: 'merge-requests',
        logger,
        internalSecret: config.internalSecret,
        registry,
        ready: { database: () => database.ping(), 'event bus': () => bus.ready(), 'git-storage': () => storage.ready(), accounts: () => waitForReady(accounts, 1000) },
      });
      const workflow = { reviews: new PgReviewStore(database), statuses: new PgStatusStore(database), policy: new AccountsRefPolicySource(accounts, metrics.grpcClient) };
      const gitFor = (requestId: string, shard: string) => diffs.wrap(mergeability.wrap(git.forRequest(requestId, shard)));
      app.use(reviewRoutes({ store, users, reviews: workflow.reviews, requests: workflow.reviews, relay: outbox, gitFor, announce }));
      app.use(statusRoutes({ statuses: workflow.statuses, relay: outbox, gitFor }));
      app.use(mergeRequestRoutes({ store, users, workflow, requests: workflow.reviews, relay: outbox, metrics, publicUrl: config.publicUrl, gitFor, usersFor: (requestId) => users.forRequest(requestId), announce }));
      finish(app);
      serving = await serveHttp(app, registry, config, { service: 'merge-requests', logger, metricsEndpoint: deps.metricsEndpoint });
      return serving.ports;
    },
    async stop() {
      await serving?.close();
      serving = undefined;
      await subscription?.close();
      subscription = undefined;
      await pruning?.stop();
      pruning = undefined;
      await recovery?.stop();
      await relay?.stop();
      if (!deps.bus) await bus.close();
      await db?.close();
      db = undefined;
      if (!deps.storage) storage.close();
      if (!deps.accounts) accounts.close();
    },
  };
}
