import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createEventBus, FileJournal, startJournalRelay, type EventBus, type Relay } from '@githost/bus';
import { createHttpApp, createRegistry, finish, listen, requestObserver, serveMetrics, type Listening, type MetricsEndpoint, type MetricsListening } from '@githost/http';
import { grpcClientMetrics, grpcServerMetrics, startGrpcServer, type GrpcListening } from '@githost/grpc';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import { createAccountsClient } from '@githost/protos';
import { AccountsPushedBranches, AccountsRefPolicies, ReadAheadRefPolicies, type RefPolicySource } from './clients/ref-policies.js';
import { FirstPushAdoption, type PushedBranchAdopter } from './events/first-push.js';
import type { Config } from './config.js';
import { journalBacklogGauge } from './events/journal-metrics.js';
import { PushEventRecorder } from './events/push-events.js';
import { RefIntents } from './events/ref-intents.js';
import { ReadCaches, type ReadCacheOptions } from './cache/read-caches.js';
import { CatfilePool, type CatfilePoolOptions } from './git/catfile-pool.js';
import { RefUpdaters } from './git/ref-updaters.js';
import { ensureGitHome } from './git/command.js';
import { installHooks } from './hooks/install.js';
import { RefsCache } from './git/refs-cache.js';
import { registerStorageService } from './grpc/service.js';
import { Housekeeper, type HousekeepingOptions } from './housekeeping/housekeeper.js';
import { mountArchives } from './http/archive.js';
import { mountGitTransport } from './http/git-transport.js';
import { lfsDirectHandler } from './http/lfs-direct.js';
import { mountLfs } from './http/lfs-transport.js';
import { DiskObjectStore } from './lfs/disk-object-store.js';
import { LockStore } from './lfs/lock-store.js';
import type { StorageContext } from './storage-context.js';
import { RefWatchers } from './watch/ref-watchers.js';

export interface ServerDeps {
  /**
   * Shared bus (launcher, tests). Without one, AMQP_URL gives a RabbitMQ bus; with neither, events
   * stay in the journal (nothing in this process would hear them) until a bus is configured.
   */
  bus?: EventBus;
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
  housekeeping?: HousekeepingOptions;
  catfile?: CatfilePoolOptions;
  /** Byte budgets of the tree listing and log page caches. */
  readCache?: Omit<ReadCacheOptions, 'registry'>;
  /** Branch and tag protection; default accounts' GetRefPolicy at ACCOUNTS_GRPC_ADDR. */
  refPolicies?: RefPolicySource;
  /** The default branch after a first push; default accounts' AdoptPushedBranches at
   *  ACCOUNTS_GRPC_ADDR, none when `refPolicies` is given without it. */
  pushedBranches?: PushedBranchAdopter;
}

export interface GitStorageService extends Service<{ httpPort: number; grpcPort: number; metricsPort: number; lfsDirectPort?: number }> {
  /** Internals for tests and the testing helpers. */
  readonly context: StorageContext;
  readonly journal: FileJournal;
  /** The journal relay while started and a bus is configured. */
  relay(): Relay | undefined;
}

export function createServer(config: Config, deps: ServerDeps = {}): GitStorageService {
  const logger = deps.logger ?? createLogger('git-storage');
  const dataDir = path.resolve(config.dataDir);
  const registry = createRegistry('git-storage');
  const pool = new CatfilePool({ registry, ...deps.catfile });
  const journal = new FileJournal(path.join(dataDir, 'journal'), { logger });
  journalBacklogGauge(registry, journal);
  const grpcInstruments = { metrics: grpcServerMetrics(registry, 'git-storage') };
  const ownBus = !deps.bus && config.amqpUrl ? createEventBus({ amqpUrl: config.amqpUrl, exchange: config.eventsExchange, logger }) : undefined;
  const bus = deps.bus ?? ownBus;
  let relay: Relay | undefined;
  const accounts = deps.refPolicies ? undefined : createAccountsClient(config.accountsGrpcAddress, config.internalSecret);
  const accountsMetrics = grpcClientMetrics(registry, 'git-storage');
  const events = new PushEventRecorder(pool, journal, () => relay, logger);
  const pushedBranches = deps.pushedBranches ?? (accounts && new AccountsPushedBranches(accounts, accountsMetrics));
  const adoption = pushedBranches && new FirstPushAdoption(pushedBranches, logger);
  const refUpdates = new RefUpdaters();
  const lfsStore = new DiskObjectStore(dataDir);
  const context: StorageContext = {
    dataDir,
    pool,
    refUpdates,
    refs: new RefsCache(),
    cache: new ReadCaches({ registry, ...deps.readCache }),
    events,
    intents: new RefIntents(path.join(dataDir, 'pending'), events, logger, adoption),
    housekeeping: new Housekeeper(logger, { ...config.housekeeping, ...deps.housekeeping }),
    watchers: new RefWatchers({ ackTimeoutMs: config.refsWatchAckTimeoutMs, heartbeatMs: config.refsWatchHeartbeatMs, logger }),
    logger,
    policies: new ReadAheadRefPolicies(deps.refPolicies ?? new AccountsRefPolicies(accounts!, accountsMetrics)),
    hooksDir: path.join(dataDir, 'hooks'),
    pushLimits: { maxBytes: config.pushMaxBytes, maxFileBytes: config.pushMaxFileBytes, quotaBytes: config.repositoryQuotaBytes, idleTimeoutMs: config.pushIdleTimeoutMs },
    lfs: lfsStore,
    compareBudget: { maxWalkCommits: config.compareMaxWalkCommits, timeoutMs: config.compareTimeoutMs },
  };
  const lfsLocks = new LockStore((id) => lfsStore.repositoryDir(id));
  let http: Listening | undefined;
  let grpcServer: GrpcListening | undefined;
  let metricsListening: MetricsListening | undefined;
  let lfsDirect: Listening | undefined;

  return {
    context,
    journal,
    relay: () => relay,
    async start() {
      await ensureGitHome();
      await mkdir(path.join(dataDir, 'repos'), { recursive: true, mode: 0o700 });
      await mkdir(path.join(dataDir, 'tmp'), { recursive: true, mode: 0o700 });
      await installHooks(dataDir);
      await context.intents.reconcile();
      await lfsStore.recover();
      const app = createHttpApp({ service: 'git-storage', logger, internalSecret: config.internalSecret, json: false, registry });
      mountGitTransport(app, context);
      mountLfs(app, context, { store: lfsStore, locks: lfsLocks, publicUrl: config.publicUrl, maxObjectBytes: config.lfsMaxObjectBytes, internalSecret: config.internalSecret, directUrl: config.lfsDirectUrl });
      mountArchives(app, context);
      finish(app);
      grpcServer = await startGrpcServer((server) => registerStorageService(server, context, grpcInstruments), config.grpcPort, config.bindHost, ['githost.storage.v1.StorageService'], config.internalSecret);
      http = await listen(app, config.httpPort, config.bindHost);
      metricsListening = await serveMetrics(registry, config.metricsPort, config.bindHost, deps.metricsEndpoint);
      // A 2 GiB push may take longer than node's 5-minute whole-request limit; the transport's idle
      // cut-off (PUSH_IDLE_TIMEOUT_MS) is what ends a client that stopped sending.
      http.server.requestTimeout = 0;
      if (config.lfsDirectUrl) {
        // Its own port, not the internal HTTP one: that port trusts the gateway's signed identity
        // and serves git transport, so only a listener that has nothing else on it can be public
        // (docs/decisions/lfs.md#direct-transfers).
        const handler = lfsDirectHandler(context, { store: lfsStore, maxObjectBytes: config.lfsMaxObjectBytes, internalSecret: config.internalSecret, directUrl: config.lfsDirectUrl, observe: requestObserver(app), registry, logger });
        lfsDirect = await listen(handler, config.lfsDirectPort, config.lfsDirectBindHost);
        // A 5 GiB object may take longer than node's whole-request limit; a client that sends
        // nothing for PUSH_IDLE_TIMEOUT_MS is cut off instead, as the gateway's body timeout does.
        lfsDirect.server.requestTimeout = 0;
        lfsDirect.server.setTimeout(config.pushIdleTimeoutMs);
      }
      // Starting the relay also publishes events journaled before a crash or while the bus was down.
      if (bus) relay = startJournalRelay({ journal, bus, logger });
      else logger.warn('git-storage: no event bus configured (AMQP_URL unset); push events stay in the journal');
      logger.info({ http_port: http.port, grpc_port: grpcServer.port, lfs_direct_port: lfsDirect?.port, data_dir: dataDir }, 'git-storage listening');
      return { httpPort: http.port, grpcPort: grpcServer.port, metricsPort: metricsListening.port, ...(lfsDirect ? { lfsDirectPort: lfsDirect.port } : {}) };
    },
    async stop() {
      context.watchers.close();
      adoption?.close();
      await Promise.all([http?.close(), lfsDirect?.close(), grpcServer?.close(), metricsListening?.close()]);
      await context.intents.settled(); // UpdateRefs answered, their events still on the way into the journal
      await context.housekeeping.stop();
      await relay?.stop();
      relay = undefined;
      await ownBus?.close();
      pool.close();
      refUpdates.close();
      accounts?.close();
    },
  };
}
