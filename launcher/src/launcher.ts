import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createEventBus, type EventBus } from '@githost/bus';
import { createServer as createGateway, loadConfig as loadGatewayConfig } from '@githost/gateway';
import { createLogger, type Logger } from '@githost/logging';
import { ensureAdminToken } from './admin-token.js';
import { bindPublicPort, boundPort } from './public-port.js';
import { asServiceModule, STAGES, type RunnableService } from './services.js';
import { shardCount, startExtraShards } from './shards.js';

export interface StartOptions {
  /** Public port of the gateway; default PORT or 3000; 0 picks a free one. */
  port?: number;
  /** Default DATA_DIR or `./data`. */
  dataDir?: string;
  /** Real Postgres; default DATABASE_URL, else PGlite under the data dir. */
  databaseUrl?: string;
  /** Real RabbitMQ; default AMQP_URL, else the in-process bus. */
  amqpUrl?: string;
  /** Bootstrap admin token; default GITHOST_ADMIN_TOKEN, else generated into DATA_DIR/admin-token. */
  adminToken?: string;
  /** Extra environment for every service (on top of process.env), e.g. GITHOST_EVENTS_EXCHANGE. */
  env?: Record<string, string>;
  /** git-storage shards run in this process; default GITHOST_SHARDS, else 1. The first is `default`
   *  on the data dir, the others `shard-<n>` on `<dataDir>/shards/shard-<n>`. */
  shards?: number;
  logger?: Logger;
}

export interface RunningGithost {
  /** `http://localhost:<port>` */
  url: string;
  port: number;
  adminToken: string;
  dataDir: string;
  /** Names of the services running behind the gateway (those implemented so far). */
  services: string[];
  stop(): Promise<void>;
}

/** Addresses nobody answers on, so a service whose dependency is not running still configures
 *  and answers 503 instead of refusing to start. */
const UNREACHABLE = { GIT_STORAGE_GRPC_ADDR: '127.0.0.1:1', ACCOUNTS_GRPC_ADDR: '127.0.0.1:1' };

/**
 * Every service in one process (CONTRACT §2 embedded mode): one shared event bus, internal
 * services on free ports, one random internal secret per process, the gateway in front.
 */
export async function startGithost(opts: StartOptions = {}): Promise<RunningGithost> {
  const base: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const logger = opts.logger ?? createLogger('launcher');
  const dataDir = path.resolve(opts.dataDir ?? nonEmpty(base.DATA_DIR) ?? './data');
  const databaseUrl = opts.databaseUrl ?? nonEmpty(base.DATABASE_URL);
  const amqpUrl = opts.amqpUrl ?? nonEmpty(base.AMQP_URL);
  const shards = shardCount(opts.shards, base.GITHOST_SHARDS);
  let adminToken = opts.adminToken ?? nonEmpty(base.GITHOST_ADMIN_TOKEN);
  if (!adminToken) {
    const generated = ensureAdminToken(dataDir);
    adminToken = generated.token;
    logger.info({ file: generated.file, created: generated.created }, 'no GITHOST_ADMIN_TOKEN set: the bootstrap admin token is in this file');
  }
  const publicServer = await bindPublicPort(opts.port ?? (nonEmpty(base.PORT) !== undefined ? Number(base.PORT) : 3000));
  const port = boundPort(publicServer);

  const env: NodeJS.ProcessEnv = {
    ...UNREACHABLE,
    ...base,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl ?? '',
    AMQP_URL: amqpUrl ?? '',
    GITHOST_INTERNAL_SECRET: randomBytes(32).toString('hex'),
    GITHOST_ADMIN_TOKEN: adminToken,
    PUBLIC_URL: nonEmpty(base.PUBLIC_URL) ?? `http://localhost:${port}`,
    // Internal services trust their callers (gRPC has no credentials): loopback only.
    BIND_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    PORT: String(port),
  };

  const bus: EventBus = createEventBus({ amqpUrl, exchange: nonEmpty(base.GITHOST_EVENTS_EXCHANGE), logger: createLogger('bus') });
  const running: { name: string; service: RunnableService }[] = [];
  const stopAll = async () => {
    for (const { name, service } of running.reverse()) {
      await service.stop().catch((err: unknown) => logger.error({ err, service: name }, 'service did not stop cleanly'));
    }
    running.length = 0;
    await bus.close().catch((err: unknown) => logger.error({ err }, 'event bus did not close cleanly'));
    // Closed by the gateway once it took it over; before that, still ours to release.
    if (publicServer.listening) await new Promise<void>((done) => publicServer.close(() => done()));
  };

  try {
    for (const stage of STAGES) {
      const stageEnv = { ...env };
      const results = await Promise.allSettled(stage.map(async (entry) => {
        const mod = asServiceModule(await entry.load());
        if (!mod) {
          logger.warn({ service: entry.name }, 'service not implemented yet: skipped');
          return;
        }
        const service = mod.createServer(mod.loadConfig(stageEnv), { bus, logger: createLogger(entry.name) });
        const ports = await service.start();
        running.push({ name: entry.name, service });
        Object.assign(env, entry.exports(ports));
      }));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      // Every shard runs before the services that route to them are configured (issue 6 part 3).
      if (stage.some((e) => e.name === 'git-storage')) Object.assign(env, await startExtraShards(shards, env, bus, (name, service) => running.push({ name, service })));
    }
    const gateway = createGateway(loadGatewayConfig(env), { logger: createLogger('gateway'), server: publicServer });
    await gateway.start();
    running.push({ name: 'gateway', service: gateway });
  } catch (err) {
    await stopAll();
    throw err;
  }

  const services = running.map((r) => r.name).filter((n) => n !== 'gateway');
  logger.info({ port, data_dir: dataDir, database: databaseUrl ? 'postgres' : 'pglite', bus: amqpUrl ? 'rabbitmq' : 'in-process', services }, 'githost started');
  let stopped: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    port,
    adminToken,
    dataDir,
    services,
    stop: () => (stopped ??= stopAll()),
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
