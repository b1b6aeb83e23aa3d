import { createEventBus, type EventBus, type Subscription } from '@githost/bus';
import type { Database } from '@githost/db';
import { startGrpcServer, type GrpcListening } from '@githost/grpc';
import { createRegistry, listen, serveMetrics, type Listening, type MetricsEndpoint, type MetricsListening, type ReadinessChecks } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import type { Service } from '@githost/runtime';
import { GrpcRepositoryStorage } from './clients/storage.js';
import { pgliteDir, type Config } from './config.js';
import { subscribeToPushes } from './consumer/push-consumer.js';
import { PgActivityStore } from './db/activity-store.js';
import { openAccountsDatabase } from './db/open.js';
import { PgProtectionStore } from './db/protection-store.js';
import { PgRepositoryStore } from './db/repository-store.js';
import { PgSessionStore } from './db/session-store.js';
import { argon2Hasher } from './crypto/argon2.js';
import { PgTokenStore } from './db/token-store.js';
import { PgUserStore } from './db/user-store.js';
import type { RepositoryStorage } from './domain/ports.js';
import { PgSshKeyStore } from './db/ssh-key-store.js';
import { accountsDeps } from './domain/deps.js';
import { registerAccountsService } from './grpc/service.js';
import { createAccountsApp } from './http/app.js';
import { createMetrics } from './metrics.js';
import { PgOAuthApplicationStore } from './db/oauth-application-store.js';
import { oauthAccessTokenLookup } from './oauth/access-tokens.js';
import { createOAuthProvider } from './oauth/provider.js';
import { loadOrCreateSigningKeys } from './oauth/signing-keys.js';

export interface ServerDeps {
  /** A shared bus (the launcher's in-process one); built from AMQP_URL when absent. */
  bus?: EventBus;
  logger?: Logger;
  /** The launcher's shared /metrics listener (embedded mode); without it, METRICS_PORT is this service's own. */
  metricsEndpoint?: MetricsEndpoint;
  /** git-storage; built from `config.storageShards` when absent. */
  storage?: RepositoryStorage & { ready?(): Promise<boolean>; close?(): void };
  /** Milliseconds since the epoch for session expiry and sign-in limits; tests move it. */
  clock?: () => number;
}

export function createServer(config: Config, deps: ServerDeps = {}): Service<{ httpPort: number; grpcPort: number; metricsPort: number }> {
  const logger = deps.logger ?? createLogger('accounts');
  let db: Database | undefined;
  let storage: ServerDeps['storage'];
  let http: Listening | undefined;
  let grpc: GrpcListening | undefined;
  let metricsListening: MetricsListening | undefined;
  let bus: EventBus | undefined;
  let subscription: Subscription | undefined;

  return {
    async start() {
      db = await openAccountsDatabase({ url: config.databaseUrl, pgliteDir: pgliteDir(config), upkeep: { warn: (fields, message) => logger.warn(fields, message), info: (fields, message) => logger.info(fields, message) } });
      const registry = createRegistry('accounts');
      const metrics = createMetrics(registry);
      storage = deps.storage ?? new GrpcRepositoryStorage(config.storageShards, config.internalSecret, metrics.grpcClient, logger);
      const database = db;
      const store = storage;
      const users = new PgUserStore(database);
      const oauthApplications = new PgOAuthApplicationStore(database);
      const provider = await createOAuthProvider({
        issuer: config.publicUrl,
        db: database,
        applications: oauthApplications,
        users,
        signingKeys: await loadOrCreateSigningKeys(database),
        internalSecret: config.internalSecret,
      });
      const accounts = accountsDeps({
        users,
        oauthApplications,
        oauthAccessTokens: oauthAccessTokenLookup(provider),
        tokens: new PgTokenStore(database),
        repositories: new PgRepositoryStore(database),
        protections: new PgProtectionStore(database),
        sessions: new PgSessionStore(database),
        sshKeys: new PgSshKeyStore(database),
        hasher: argon2Hasher,
        sessionSettings: config.sessions,
        clock: deps.clock,
        storage: store,
        placement: { shards: [...config.storageShards.keys()], defaultShard: config.defaultShard },
        adminToken: config.adminToken,
        onOrphan: (repository_id, err) => logger.error({ err, repository_id }, 'could not remove a half-created repository from git-storage'),
        onHeadDrift: (repository_id, err) => logger.error({ err, repository_id }, 'could not point HEAD back at the default branch after a failed change'),
      });
      // The bus is no readiness check: every request passes accounts, and a broker outage only
      // delays the Explore order (the subscription resumes by itself), so it must not take accounts out.
      bus = deps.bus ?? createEventBus({ amqpUrl: config.amqpUrl, exchange: config.eventsExchange, logger });
      subscription = await subscribeToPushes(bus, new PgActivityStore(database), logger, config.eventsQueue);
      const ready: ReadinessChecks = { database: () => database.ping(), 'git-storage': () => (store.ready ? store.ready() : Promise.resolve(true)) };
      const app = createAccountsApp({ logger, internalSecret: config.internalSecret, publicUrl: config.publicUrl, ready, deps: accounts, registry, onSignIn: (result) => metrics.signIns.inc({ result }), oauth: { provider, db: database } });
      grpc = await startGrpcServer((server) => registerAccountsService(server, accounts, metrics, logger), config.grpcPort, config.bindHost, ['githost.accounts.v1.AccountsService'], config.internalSecret);
      http = await listen(app, config.httpPort, config.bindHost);
      metricsListening = await serveMetrics(registry, config.metricsPort, config.bindHost, deps.metricsEndpoint);
      logger.info({ http_port: http.port, grpc_port: grpc.port, database: database.kind }, 'accounts started');
      return { httpPort: http.port, grpcPort: grpc.port, metricsPort: metricsListening.port };
    },

    async stop() {
      await Promise.all([http?.close(), grpc?.close(), metricsListening?.close()]);
      await subscription?.close();
      if (!deps.bus) await bus?.close();
      if (!deps.storage) storage?.close?.();
      await db?.close();
      http = grpc = db = storage = bus = subscription = undefined;
    },
  };
}
