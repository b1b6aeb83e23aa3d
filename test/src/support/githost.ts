import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { removeBrokerTopology } from '@githost/bus/testing';
import { createTestDatabase } from '@githost/db';
import { startGithost } from '@githost/launcher';
import { removeWorkdirs } from './git.js';

export interface TestGithost {
  /** `http://127.0.0.1:<port>` (IPv4 literal: the gateway listens on IPv4). */
  url: string;
  port: number;
  /** Where git over SSH connects (services/ssh). */
  sshPort: number;
  /** `GET /metrics` of every service (one listener, embedded mode): never the public port. */
  metricsUrl: string;
  adminToken: string;
  dataDir: string;
  /** Loopback gRPC addresses of git-storage and accounts, for tests that call them directly. */
  grpcAddresses: { gitStorage: string; accounts: string };
  backend: 'embedded' | 'postgres+rabbitmq';
  /** The test database on the local Postgres (backend `real`), for tests that read it from outside. */
  databaseUrl?: string;
  /** Events exchange of this run (unique per run on RabbitMQ). */
  exchange: string;
  /** Each gateway's own URL; one unless `replicas` (then `url` is haproxy in front of them). */
  gatewayUrls?: string[];
  /** Every child process by name (`browse 2`, `gateway 2`, `haproxy`...), with `replicas`. */
  processes?: Array<{ name: string; pid: number }>;
  /** Each process's metrics port by name (`gateway`, `gateway 2`, ...). */
  metricsPorts?: Record<string, number>;
  /** Each replica's own HTTP port by service name (`web`: [web 1's, web 2's]), with `replicas`. */
  replicaPorts?: Record<string, number[]>;
  /** haproxy's statistics page (`;csv`), with `replicas`. */
  haproxyStatsUrl?: string;
  /** Stops every service, drops the test database, removes the data dir and the workdirs made
   *  with makeWorkdir(). */
  stop(): Promise<void>;
}

export interface TestGithostOptions {
  /** `embedded` (default): PGlite + in-process bus. `real`: a fresh database on the local
   *  Postgres and a unique exchange on the local RabbitMQ. */
  backend?: 'embedded' | 'real';
  /** Extra environment for every service. Webhook delivery to local receivers is allowed and
   *  retries are quick by default; override here. */
  env?: Record<string, string>;
  /** `test` (default): limits far above what a test file sends. `default`: the services' own
   *  defaults, for a test of the limits as a deployment gets them. */
  rateLimits?: 'test' | 'default';
  /** Each service in its own process, this many of each replicated service and gateways behind
   *  haproxy (docs/decisions/replicas.md); needs `backend: 'real'`. */
  replicas?: number;
  /** git-storage shards (GITHOST_SHARDS). */
  shards?: number;
}

const TEST_ENV = {
  GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
  GITHOST_WEBHOOK_RETRY_BASE_MS: '50',
};

const TEST_RATE_LIMITS = {
  // Limits on, so every answer goes through the limiter and carries its headers, but far above
  // what a test file sends from its one address and handful of tokens.
  GITHOST_RATE_LIMIT_PER_MINUTE: '100000',
  GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '100000',
  GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '100000',
  GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '100000',
};

/** The whole service in this process on a free port, in a temp data dir. */
export async function startTestGithost(opts: TestGithostOptions = {}): Promise<TestGithost> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-data-'));
  const suffix = `${process.pid}.${randomBytes(4).toString('hex')}`;
  const real = opts.backend === 'real';
  const database = real ? await createTestDatabase('githost_e2e') : undefined;
  const exchange = real ? `githost.events.e2e.${suffix}` : 'githost.events';
  const webhooksQueue = `githost.webhooks.e2e.${suffix}`;
  const mergeRequestsQueue = `githost.merge-requests.e2e.${suffix}`;
  const accountsQueue = `githost.accounts.e2e.${suffix}`;
  const amqpUrl = real ? process.env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672' : undefined;
  const adminToken = `e2e-admin-${randomBytes(16).toString('hex')}`;
  try {
    const githost = await startGithost({
      port: 0,
      metricsPort: 0,
      sshPort: 0,
      dataDir,
      adminToken,
      databaseUrl: database?.url,
      amqpUrl,
      ...(opts.replicas ? { processPerService: true, replicas: opts.replicas } : {}),
      ...(opts.shards ? { shards: opts.shards } : {}),
      env: {
        ...TEST_ENV,
        ...(opts.rateLimits === 'default' ? {} : TEST_RATE_LIMITS),
        // Unset unless real, so a developer's DATABASE_URL/AMQP_URL never leak into embedded runs.
        DATABASE_URL: '',
        AMQP_URL: '',
        GITHOST_EVENTS_EXCHANGE: exchange,
        GITHOST_WEBHOOKS_QUEUE: webhooksQueue,
        GITHOST_MERGE_REQUESTS_QUEUE: mergeRequestsQueue,
        GITHOST_ACCOUNTS_QUEUE: accountsQueue,
        ...opts.env,
      },
    });
    return {
      url: `http://127.0.0.1:${githost.port}`,
      port: githost.port,
      sshPort: githost.sshPort,
      metricsUrl: `http://127.0.0.1:${githost.metricsPorts.gateway}/metrics`,
      adminToken,
      dataDir,
      grpcAddresses: githost.grpcAddresses,
      backend: real ? 'postgres+rabbitmq' : 'embedded',
      databaseUrl: database?.url,
      exchange,
      gatewayUrls: githost.gatewayUrls.length > 0 ? githost.gatewayUrls : [`http://127.0.0.1:${githost.port}`],
      processes: githost.processes,
      haproxyStatsUrl: githost.haproxyStatsUrl,
      metricsPorts: githost.metricsPorts,
      replicaPorts: githost.replicaPorts,
      async stop() {
        await githost.stop();
        await database?.drop();
        if (amqpUrl) await removeBrokerTopology(amqpUrl, exchange, [webhooksQueue, mergeRequestsQueue, accountsQueue]);
        rmSync(dataDir, { recursive: true, force: true });
        removeWorkdirs();
      },
    };
  } catch (err) {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
