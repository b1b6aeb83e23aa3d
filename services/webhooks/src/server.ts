import { join } from 'node:path';
import type { EventBus, Subscription } from '@githost/bus';
import { openServiceDatabase, startPruneLoop, type Database, type PruneLoop } from '@githost/db';
import { createHttpApp, createRegistry, finish, serveHttp, type MetricsEndpoint, type ServingHttp } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import type { Config } from './config.js';
import { MIGRATIONS } from './db/migrations.js';
import { PgWebhookStore } from './db/webhook-store.js';
import { PgDeliveryStore } from './db/delivery-store.js';
import { webhookRoutes } from './http/routes.js';
import { subscribeToEvents } from './consumer/event-consumer.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { deliveryMetrics } from './delivery/metrics.js';
import { createEventBus } from './clients/event-bus.js';

export interface ServerDeps {
  bus?: EventBus;
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
}

const SERVICE = 'webhooks';
/** Deliveries past retention are looked for this often (docs/decisions/list-paging.md#retention). */
const DELIVERY_PRUNE_EVERY_MS = 60 * 60_000;

/**
 * The webhooks service: management API, event consumer and delivery worker over one database.
 * Nothing is opened until start(), so building it has no side effects.
 */
export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger(SERVICE);
  let db: Database | undefined;
  let bus: EventBus | undefined;
  let ownsBus = false;
  let serving: ServingHttp | undefined;
  let subscription: Subscription | undefined;
  let worker: DeliveryWorker | undefined;
  let pruning: PruneLoop | undefined;

  return {
    async start() {
      db = await openServiceDatabase({ url: config.databaseUrl, dataDir: config.databaseUrl ? undefined : join(config.dataDir, 'db', SERVICE), schema: SERVICE, migrations: MIGRATIONS, upkeep: { warn: (fields, message) => logger.warn(fields, message), info: (fields, message) => logger.info(fields, message) } });
      const webhooks = new PgWebhookStore(db);
      const formatContext = { publicUrl: config.publicUrl };
      const deliveries = new PgDeliveryStore(db, formatContext);
      const registry = createRegistry(SERVICE);
      const metrics = deliveryMetrics(registry, deliveries);

      worker = new DeliveryWorker(
        deliveries,
        {
          timeoutMs: config.timeoutMs,
          allowPrivate: config.allowPrivate,
          retry: { maxAttempts: config.maxAttempts, baseDelayMs: config.retryBaseMs },
          concurrency: config.concurrency,
          pollMs: config.pollMs,
        },
        logger,
        metrics,
      );
      const wake = () => worker?.wake();

      const database = db;
      bus = deps.bus;
      if (!bus) {
        bus = createEventBus(config, logger);
        ownsBus = true;
      }
      const eventBus = bus;
      const app = createHttpApp({
        service: SERVICE,
        logger,
        registry,
        internalSecret: config.internalSecret,
        ready: { database: () => database.ping(), 'event bus': () => eventBus.ready() },
      });
      app.use(webhookRoutes({ webhooks, deliveries, formatContext, onQueued: wake }));
      finish(app);

      // Subscribed before serving: the queue exists before any webhook can be made, so no event a
      // webhook wants can find the broker without it (docs/decisions/unroutable-events.md).
      subscription = await subscribeToEvents(eventBus, deliveries, webhooks, worker, logger, { queue: config.eventsQueue, metrics });
      serving = await serveHttp(app, registry, config, { service: SERVICE, logger, metricsEndpoint: deps.metricsEndpoint });
      worker.start();
      pruning = startPruneLoop({
        everyMs: DELIVERY_PRUNE_EVERY_MS,
        firstAfterMs: 60_000,
        pass: () => deliveries.prune(config.retentionCount, config.retentionDays),
        onError: (err) => logger.warn({ err }, 'pruning webhook deliveries failed; the next pass tries again'),
        onDone: (pruned, ms) => logger.info({ pruned, duration_ms: Math.round(ms) }, 'webhook deliveries pruned'),
      });
      return serving.ports;
    },

    async stop() {
      await pruning?.stop();
      pruning = undefined;
      await subscription?.close();
      await serving?.close();
      await worker?.stop();
      if (ownsBus) await bus?.close();
      await db?.close();
      subscription = undefined;
      serving = undefined;
      worker = undefined;
      db = undefined;
    },
  };
}
