import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { bindingPort, env as envShapes, loadConfig, z } from '@githost/config';
import { holdsDatabase, shareEmbeddedDatabase } from '@githost/db';
import { MetricsEndpoint } from '@githost/http';
import { createLogger, type Logger } from '@githost/logging';
import { privateFileModes } from '@githost/runtime';
import { writeSettingsFile } from '@githost/ssh/openssh';
import { ensureAdminToken } from './admin-token.js';
import { InProcessServices } from './in-process.js';
import { lfsDirect } from './lfs-direct.js';
import { childEntry, processPerService, requireBrokerForProcesses, ServiceProcesses, type Ports, type ServiceProcess } from './processes.js';
import { bindPublicPort, boundPort, reserveLoopbackPort, type ReservedPort } from './public-port.js';
import { STAGES } from './services.js';
import { shardCount, startExtraShards } from './shards.js';
import { haproxyConfig, REPLICA_SHUTDOWN_DELAY_MS, REPLICATED, replicaCount, requireProcessesForReplicas, startHaproxy, waitUntilReady, type ProxySection, type RunningHaproxy } from './replicas.js';

export interface StartOptions {
  /** Public port of the gateway; default PORT or 3000; 0 picks a free one. */
  port?: number;
  /** Prometheus `GET /metrics` (never the public port, CONTRACT §8); default METRICS_PORT or 9464;
   *  0 picks a free one. In one process, every service's metrics on this one port; with
   *  processPerService, each child gets its own: this port, then the next ones in start order. */
  metricsPort?: number;
  /** The SSH service's listener (services/ssh); default SSH_PORT or 2222; 0 picks a free one. */
  sshPort?: number;
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
  /** Each git-storage shard serves LFS object bytes on a public listener of its own and batches
   *  point signed-in clients there (docs/decisions/lfs.md#direct-transfers); default
   *  GITHOST_LFS_DIRECT, else false. */
  lfsDirect?: boolean;
  /** git-storage shards run in this process; default GITHOST_SHARDS, else 1. The first is `default`
   *  on the data dir, the others `shard-<n>` on `<dataDir>/shards/shard-<n>`. */
  shards?: number;
  /** Each service and the gateway as its own child process, as deployed; default
   *  GITHOST_PROCESS_PER_SERVICE, else false. Needs RabbitMQ (AMQP_URL). */
  processPerService?: boolean;
  /** Processes of each of browse, merge-requests, webhooks and web, and gateways, all behind one
   *  haproxy on the public port (docs/decisions/replicas.md); default GITHOST_REPLICAS, else 1.
   *  Above 1 needs processPerService and Debian's haproxy. */
  replicas?: number;
  /** With processPerService: the child entry (`launcher/dist/child.js`) of another build for some
   *  services, as during a rolling upgrade (the mixed-versions test, docs/decisions/proto-contracts.md);
   *  undefined for a service: this build's. */
  childEntryFor?: (module: string) => string | undefined;
  logger?: Logger;
}

export interface RunningGithost {
  /** `http://localhost:<port>` */
  url: string;
  port: number;
  /** Where the SSH service listens (git over SSH). */
  sshPort: number;
  adminToken: string;
  dataDir: string;
  /** Names of the services running behind the gateway. */
  services: string[];
  /** Each service's (and each shard's) metrics port, by the names in `services` and `gateway`;
   *  in one process they are all the same port. */
  metricsPorts: Record<string, number>;
  /** The launcher, then each service's child process when processPerService. */
  processes: ServiceProcess[];
  /** Settles when a service process died on its own and the others were stopped (processPerService). */
  crashed: Promise<Error>;
  /** Each gateway's own URL (`http://127.0.0.1:<port>`): one, the public one, unless replicas. */
  gatewayUrls: string[];
  /** Each replica's http port by service name (replicas mode), in replica order. */
  replicaPorts: Record<string, number[]>;
  /** haproxy's statistics page on loopback (`;csv` for each server's UP/DOWN), with replicas. */
  haproxyStatsUrl?: string;
  /** Each shard's direct LFS URL (LFS_DIRECT_URL), default shard first; empty unless lfsDirect. */
  lfsDirectUrls: string[];
  /** Loopback gRPC addresses of the internal services (`GIT_STORAGE_GRPC_ADDR`, `ACCOUNTS_GRPC_ADDR`). */
  grpcAddresses: { gitStorage: string; accounts: string };
  stop(): Promise<void>;
}

/** Addresses nobody answers on, so a service whose dependency is not running still configures
 *  and answers 503 instead of refusing to start. */
const UNREACHABLE = { GIT_STORAGE_GRPC_ADDR: '127.0.0.1:1', ACCOUNTS_GRPC_ADDR: '127.0.0.1:1' };

/**
 * Every service in one process (CONTRACT §2 embedded mode: one shared event bus), or each in its
 * own child process (processPerService); either way internal services on free loopback ports, one
 * random internal secret per start, the gateway in front on the public port.
 */
export async function startGithost(opts: StartOptions = {}): Promise<RunningGithost> {
  const base: NodeJS.ProcessEnv = { ...process.env, ...opts.env };
  const logger = opts.logger ?? createLogger('launcher');
  const dataDir = path.resolve(opts.dataDir ?? nonEmpty(base.DATA_DIR) ?? './data');
  const databaseUrl = opts.databaseUrl ?? nonEmpty(base.DATABASE_URL);
  const amqpUrl = opts.amqpUrl ?? nonEmpty(base.AMQP_URL);
  const shards = shardCount(opts.shards, base.GITHOST_SHARDS);
  const split = processPerService(opts.processPerService, base.GITHOST_PROCESS_PER_SERVICE);
  if (split) requireBrokerForProcesses(amqpUrl);
  const replicas = replicaCount(opts.replicas, base.GITHOST_REPLICAS);
  requireProcessesForReplicas(replicas, split, databaseUrl);
  const childFile = split ? childEntry() : undefined;
  // Embedded, every service shares this process: DATA_DIR and all under it for its user alone
  // (child processes inherit the umask). Made only once the configuration is known to be good.
  privateFileModes();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  let adminToken = opts.adminToken ?? nonEmpty(base.GITHOST_ADMIN_TOKEN);
  if (!adminToken) {
    const generated = ensureAdminToken(dataDir);
    adminToken = generated.token;
    logger.info({ file: generated.file, created: generated.created }, 'no GITHOST_ADMIN_TOKEN set: the bootstrap admin token is in this file');
  }
  const ports = loadConfig('launcher', z.object({ PORT: envShapes.port(3000), METRICS_PORT: envShapes.metricsPort() }), { PORT: nonEmpty(base.PORT), METRICS_PORT: nonEmpty(base.METRICS_PORT) });
  const metricsPort = opts.metricsPort ?? ports.METRICS_PORT;
  const publicPort = opts.port ?? ports.PORT;
  const publicServer = await bindingPort('PORT', publicPort, () => bindPublicPort(publicPort));
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
    // Internal services: loopback only; their gRPC calls are signed with the secret above.
    BIND_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    PORT: String(port),
    // The web renders pages from the public API: through the gateway, like any client.
    GATEWAY_URL: nonEmpty(base.GATEWAY_URL) ?? `http://127.0.0.1:${port}`,
    ...(opts.sshPort !== undefined ? { SSH_PORT: String(opts.sshPort) } : {}),
  };

  const { GITHOST_LFS_DIRECT: directOn } = loadConfig('launcher', z.object({ GITHOST_LFS_DIRECT: envShapes.bool(false) }), { GITHOST_LFS_DIRECT: nonEmpty(base.GITHOST_LFS_DIRECT) });
  const direct = lfsDirect(opts.lfsDirect ?? directOn, { url: nonEmpty(base.LFS_DIRECT_URL), port: nonEmpty(base.LFS_DIRECT_PORT), bindHost: nonEmpty(base.LFS_DIRECT_BIND_HOST) }, env.PUBLIC_URL as string);

  const reserved = new Map<string, ReservedPort>();
  for (const entry of STAGES.flat().filter((e) => e.reserveGrpcPort)) {
    const port = await reserveLoopbackPort();
    reserved.set(entry.name, port);
    Object.assign(env, entry.exports({ grpcPort: port.port }));
  }
  const releaseReserved = () => Promise.all([...reserved.values()].map((r) => r.release()));

  // One process: one metrics listener, on loopback like the internal ports, for every service.
  let metricsEndpoint: MetricsEndpoint | undefined;
  if (!split) {
    metricsEndpoint = new MetricsEndpoint();
    await metricsEndpoint.listen(metricsPort, '127.0.0.1').catch(async (err: unknown) => {
      await Promise.all([releaseReserved(), closeServer(publicServer)]);
      throw err;
    });
  }
  // Embedded: one PGlite for every service, a schema each (docs/embedded-mode.md), opened while
  // the first services start.
  const embeddedDb = !split && !databaseUrl ? shareEmbeddedDatabase(path.join(dataDir, 'db', SHARED_DB)) : undefined;
  if (embeddedDb) warnOwnDatabases(path.join(dataDir, 'db'), logger);
  const runner = split ? new ServiceProcesses(logger, childFile, opts.childEntryFor) : new InProcessServices(amqpUrl, nonEmpty(base.GITHOST_EVENTS_EXCHANGE), logger, metricsEndpoint);
  if (runner instanceof ServiceProcesses && replicas > 1) for (const module of [...REPLICATED.map((r) => r.name), 'gateway']) runner.replicated.add(module);
  // Each replicated service's haproxy sections, set up as soon as its replicas run, so the stages
  // after it are configured with the sections' addresses; haproxy binds them once all run.
  const sections: ProxySection[] = [];
  const held: ReservedPort[] = [];
  // Replicas: each gateway's own loopback port, bound now so that the web replica paired with it
  // is configured with its address before the gateways start (docs/decisions/replicas.md#the-webs-own-gateway).
  const gatewayServers: Server[] = [];
  for (let n = 1; n <= (replicas > 1 ? replicas : 0); n++) gatewayServers.push(await bindPublicPort(0, '127.0.0.1'));
  let haproxy: RunningHaproxy | undefined;
  const stopAll = async () => {
    // The load balancer first, so nothing new reaches a stopping replica.
    await haproxy?.stop();
    await runner.stop();
    await embeddedDb?.close();
    await Promise.all([releaseReserved(), ...held.map((h) => h.release())]);
    // Closed by the gateway (or, split, by us) once it took it over; before that, still ours to release.
    if (publicServer.listening) await closeServer(publicServer);
    await Promise.all(gatewayServers.filter((g) => g.listening).map((g) => closeServer(g)));
  };

  // A replica sent SIGTERM on its own (a rolling restart) stays serving, not ready, until haproxy
  // has taken it out (docs/decisions/replicas.md#a-replica-that-dies); an operator's value wins.
  if (replicas > 1 && nonEmpty(base.GITHOST_SHUTDOWN_DELAY_MS) === undefined) env.GITHOST_SHUTDOWN_DELAY_MS = String(REPLICA_SHUTDOWN_DELAY_MS);
  // Web replica n renders from gateway n's own port, not through the public load balancer, and
  // from every gateway behind it when that one is not there (docs/decisions/replicas.md#the-webs-own-gateway);
  // the Gitea-compatible face (one process) calls gateway 1 the same way
  // (docs/decisions/replicas.md#the-gitea-compatible-faces-own-gateway). An operator's GATEWAY_URL wins.
  // GITHOST_REPLICAS_PAIRED=false keeps every such call on haproxy's sections (the path before the
  // pairing, which the replicas bench measures beside it).
  const { GITHOST_REPLICAS_PAIRED: paired } = loadConfig('launcher', z.object({ GITHOST_REPLICAS_PAIRED: envShapes.bool(true) }), { GITHOST_REPLICAS_PAIRED: nonEmpty(base.GITHOST_REPLICAS_PAIRED) });
  const ownGateway = (service: string, index: number): NodeJS.ProcessEnv =>
    paired && (service === 'web' || service === 'gitea-api') && nonEmpty(base.GATEWAY_URL) === undefined && gatewayServers[index] ? { GATEWAY_URL: `http://127.0.0.1:${boundPort(gatewayServers[index])}`, GATEWAY_FALLBACK_URL: env.GATEWAY_URL } : {};
  // Gateway n forwards pages to web replica n's own port, haproxy's web section behind it
  // (docs/decisions/replicas.md#the-web-paired-with-its-gateway); an operator's WEB_URL wins.
  const ownWeb = (index: number): NodeJS.ProcessEnv => {
    const web = replicaPorts.web?.[index];
    return paired && nonEmpty(base.WEB_URL) === undefined && web ? { WEB_URL: `http://127.0.0.1:${web}`, WEB_FALLBACK_URL: env.WEB_URL } : {};
  };
  const started: string[] = [];
  const replicaPorts: Record<string, number[]> = {};
  const gatewayUrls: string[] = [];
  let haproxyStatsUrl: string | undefined;
  const metricsPorts: Record<string, number> = {};
  let sshPort = 0;
  // processPerService: each child its own metrics port, in start order (all free ones for 0).
  let children = 0;
  const withMetricsPort = (startEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv => (split ? { ...startEnv, METRICS_PORT: String(metricsPort === 0 ? 0 : metricsPort + children++) } : startEnv);
  const startOne = async (name: string, module: string, stage: number, startEnv: NodeJS.ProcessEnv, server?: Server, grpcPort?: ReservedPort): Promise<Ports> => {
    const ports = await runner.start(name, module, stage, withMetricsPort(startEnv), server, grpcPort);
    if (ports.metricsPort !== undefined) metricsPorts[name] = ports.metricsPort;
    if (ports.sshPort !== undefined) sshPort = ports.sshPort;
    if (!name.startsWith('gateway')) started.push(name);
    return ports;
  };
  try {
    for (const [index, stage] of STAGES.entries()) {
      const stageEnv = { ...env };
      const results = await Promise.allSettled(stage.map(async (entry) => {
        const replicated = replicas > 1 ? REPLICATED.find((r) => r.name === entry.name) : undefined;
        const port = reserved.get(entry.name);
        if (replicated) {
          // The replicas take free ports; the reserved gRPC port is their haproxy section's.
          const all = [await startOne(entry.name, entry.name, index, { ...stageEnv, ...ownGateway(entry.name, 0) })];
          for (let n = 2; n <= replicas; n++) all.push(await startOne(`${entry.name} ${n}`, entry.name, index, { ...stageEnv, ...ownGateway(entry.name, n - 1) }));
          Object.assign(env, entry.exports(all[0]!), await proxySectionsFor(replicated, all, port, sections, held));
          replicaPorts[entry.name] = all.map((p) => p.httpPort ?? 0);
          return;
        }
        // The reserved port stays bound until the service's gRPC server binds it (packages/runtime/src/held-ports.ts).
        const ownEnv = { ...stageEnv, ...ownGateway(entry.name, 0), ...(entry.name === 'git-storage' ? await direct.shardEnv('default') : {}) };
        const ports = await startOne(entry.name, entry.name, index, port ? { ...ownEnv, GRPC_PORT: String(port.port) } : ownEnv, undefined, port);
        Object.assign(env, entry.exports(ports));
      }));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      // Every shard runs before the services that route to them are configured.
      if (stage.some((e) => e.name === 'git-storage')) Object.assign(env, await startExtraShards(shards, env, async (name, shardEnv) => startOne(name, 'git-storage', index, { ...shardEnv, ...(await direct.shardEnv(name)) })));
    }
    if (replicas > 1) {
      const gatewayPorts: number[] = [];
      for (let n = 1; n <= replicas; n++) {
        const own = gatewayServers[n - 1]!;
        const gatewayPort = boundPort(own);
        gatewayPorts.push(gatewayPort);
        // haproxy names the client in X-Forwarded-For: without trusting that one hop, every
        // anonymous client would share haproxy's address and its budget.
        await startOne(n === 1 ? 'gateway' : `gateway ${n}`, 'gateway', STAGES.length, { ...env, ...ownWeb(n - 1), GITHOST_TRUST_PROXY: nonEmpty(base.GITHOST_TRUST_PROXY) ?? '1' }, own);
        await closeServer(own);
        gatewayUrls.push(`http://127.0.0.1:${gatewayPort}`);
      }
      sections.unshift({ name: 'gateway', port, bind: '0.0.0.0', servers: gatewayPorts, forwardFor: true });
      const stats = await reserveLoopbackPort();
      await Promise.all([...held.map((h) => h.release()), stats.release(), closeServer(publicServer)]);
      haproxy = await startHaproxy(haproxyConfig(sections, stats.port), port, logger, nonEmpty(base.GITHOST_HAPROXY));
      haproxyStatsUrl = `http://127.0.0.1:${stats.port}/`;
      const notReady = await waitUntilReady([...gatewayUrls, `http://127.0.0.1:${port}`]);
      if (notReady.length > 0) logger.warn({ not_ready: notReady }, 'gateways not ready 60 s after haproxy started: starting anyway');
    } else {
      await startOne('gateway', 'gateway', STAGES.length, env, publicServer);
      // The gateway child serves on its own copy of the listening socket: ours would answer 503.
      if (split) await closeServer(publicServer);
      gatewayUrls.push(`http://127.0.0.1:${port}`);
    }
    if (runner instanceof InProcessServices) await runner.allStarted();
  } catch (err) {
    await stopAll();
    throw err;
  }

  // OpenSSH mode's githost-keys and githost-serve find this start's addresses and secret here
  // (services/ssh/README.md#openssh-mode).
  writeSettingsFile(dataDir, env);
  const processes = [{ name: 'launcher', pid: process.pid }, ...runner.list(), ...(haproxy ? [{ name: 'haproxy', pid: haproxy.pid }] : [])];
  logger.info(
    { port, ssh_port: sshPort, lfs_direct_urls: direct.urls, metrics_ports: metricsPorts, data_dir: dataDir, database: databaseUrl ? 'postgres' : 'pglite', bus: amqpUrl ? 'rabbitmq' : 'in-process', mode: split ? 'process-per-service' : 'one-process', replicas, services: started, processes },
    'githost started',
  );
  let stopped: Promise<void> | undefined;
  return {
    url: `http://localhost:${port}`,
    port,
    sshPort,
    adminToken,
    dataDir,
    services: started,
    metricsPorts,
    processes,
    crashed: runner.crashed,
    gatewayUrls,
    replicaPorts,
    haproxyStatsUrl,
    lfsDirectUrls: direct.urls,
    grpcAddresses: { gitStorage: env.GIT_STORAGE_GRPC_ADDR as string, accounts: env.ACCOUNTS_GRPC_ADDR as string },
    stop: () => (stopped ??= stopAll()),
  };
}

/**
 * The haproxy sections of one replicated service (docs/decisions/replicas.md): HTTP, and for a
 * service others call over gRPC a TCP section too, on `reservedGrpc` when the service's gRPC port
 * was reserved for an earlier stage. Their ports stay held until haproxy binds them; returns the
 * variables that point the other services at them.
 */
async function proxySectionsFor(
  service: (typeof REPLICATED)[number],
  replicas: Ports[],
  reservedGrpc: ReservedPort | undefined,
  sections: ProxySection[],
  held: ReservedPort[],
): Promise<Record<string, string>> {
  const httpPorts = replicas.map((p) => p.httpPort ?? 0);
  const front = await reserveLoopbackPort();
  held.push(front);
  sections.push({ name: service.name, port: front.port, servers: httpPorts });
  const vars: Record<string, string> = { [service.urlVar]: `http://127.0.0.1:${front.port}` };
  if (service.grpcVar) {
    const grpcFront = reservedGrpc ?? (await reserveLoopbackPort());
    held.push(grpcFront);
    sections.push({ name: `${service.name}-grpc`, port: grpcFront.port, mode: 'tcp', servers: replicas.map((p) => p.grpcPort ?? 0), tracks: service.name });
    vars[service.grpcVar] = `127.0.0.1:${grpcFront.port}`;
  } else await reservedGrpc?.release();
  return vars;
}

/** `<DATA_DIR>/db/shared`: the embedded database; its siblings are the services' own from before. */
const SHARED_DB = 'shared';

/** Service databases from before the shared one are still used as they are (never left behind),
 *  each its own PGlite: said once at start, with how to keep the footprint small. */
function warnOwnDatabases(dbDir: string, logger: Logger): void {
  if (!existsSync(dbDir)) return;
  const own = readdirSync(dbDir).filter((name) => name !== SHARED_DB && holdsDatabase(path.join(dbDir, name)));
  if (own.length > 0) logger.warn({ databases: own.map((name) => path.join(dbDir, name)) }, 'these services keep an embedded database of their own from an earlier version: each costs ~150 MiB more memory (README "Performance")');
}

function closeServer(server: Server): Promise<void> {
  return new Promise((done) => server.close(() => done()));
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
