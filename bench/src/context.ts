import { randomBytes } from 'node:crypto';
import { createTestDatabase, openDatabase } from '@githost/db';
import { removeBrokerTopology } from '@githost/bus/testing';
import { freePort } from '@githost/test-support';
import { Api, createRepo, createUser, gitUrl, type BenchUser } from './api.js';
import { ensureRepo, type GeneratedRepo } from './generate-repo.js';
import { isQuick, resolveParams, type RepoParams } from './params.js';
import type { NamedProcess, RssPeaks } from './rss.js';
import { launcherMissing, startService, type RunningService } from './service.js';

/** The pushed copy of the generated repository on githost, shared by the benches of one run. */
export interface HostedRepo {
  name: string;
  id: string;
  url: string;
}

/**
 * What one `npm run bench` shares: the generated repository, ONE githost (real Postgres and
 * RabbitMQ unless BENCH_EMBEDDED=1; one process per service as deployed, unless BENCH_ONE_PROCESS=1
 * or BENCH_EMBEDDED=1), one user, and the big repository pushed once.
 */
export class BenchContext {
  readonly quick: boolean;
  readonly params: RepoParams;
  readonly amqpUrl: string;
  readonly exchange = `githost.bench.${Date.now()}.${randomBytes(3).toString('hex')}`;
  readonly queue = `${this.exchange}.webhooks`;
  readonly mergeRequestsQueue = `${this.exchange}.merge-requests`;
  readonly accountsQueue = `${this.exchange}.accounts`;
  private repoP?: Promise<GeneratedRepo>;
  private serviceP?: Promise<RunningService>;
  private userP?: Promise<BenchUser>;
  private hosted?: HostedRepo;
  private dropDatabase?: () => Promise<void>;
  /** SSH_PORT given to the launcher (the SSH service listens there once it has landed). */
  sshPort?: number;
  /** The run's Postgres database (its backends are found by this name); unset when embedded. */
  databaseName?: string;
  /** Its URL, for parts that write data in bulk with SQL (the scale part); unset when embedded. */
  databaseUrl?: string;
  /** The server's `autovacuum` setting: with it off nothing analyses what a run writes unless the
   *  part does (docs/decisions/database-upkeep.md#postgres-with-autovacuum-off). */
  postgresAutovacuum?: string;
  readonly embedded: boolean;
  /** Each service in its own process (GITHOST_PROCESS_PER_SERVICE), as on Kubernetes. */
  readonly processPerService: boolean;

  constructor(readonly env: NodeJS.ProcessEnv = process.env) {
    this.quick = isQuick(env);
    this.params = resolveParams(env);
    this.amqpUrl = env.AMQP_URL || 'amqp://guest:guest@127.0.0.1:5672';
    this.embedded = env.BENCH_EMBEDDED === '1';
    // The in-process bus cannot cross processes: embedded runs are one process.
    this.processPerService = env.BENCH_ONE_PROCESS !== '1' && !this.embedded;
  }

  log(msg: string): void {
    console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}`);
  }

  /** Whether a part asked for the generated repository. */
  get repoUsed(): boolean {
    return this.repoP !== undefined;
  }

  repo(): Promise<GeneratedRepo> {
    return (this.repoP ??= ensureRepo(this.params, { log: (m) => this.log(m) }));
  }

  /** Why the service benches cannot run at all, if they cannot. */
  serviceUnavailable(): string | undefined {
    return launcherMissing();
  }

  service(): Promise<RunningService> {
    return (this.serviceP ??= this.boot());
  }

  user(): Promise<BenchUser> {
    return (this.userP ??= this.service().then((s) => createUser(new Api(s.url, s.adminToken), `bench${randomBytes(3).toString('hex')}`)));
  }

  /** The big repository, pushed by `push` when a bench needs it and clone-push has not run. */
  async hostedRepo(push: (url: string) => Promise<void>): Promise<HostedRepo> {
    if (this.hosted) return this.hosted;
    const service = await this.service();
    const user = await this.user();
    const { id, name } = await createRepo(user, 'big');
    const url = gitUrl(service.url, user, name);
    await push(url);
    this.hosted = { id, name, url };
    return this.hosted;
  }

  hasHostedRepo(): boolean {
    return this.hosted !== undefined;
  }

  private async boot(): Promise<RunningService> {
    const env: Record<string, string> = {
      LOG_LEVEL: this.env.BENCH_LOG_LEVEL ?? 'info',
      GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      GITHOST_WEBHOOK_RETRY_BASE_MS: this.env.BENCH_WEBHOOK_RETRY_BASE_MS ?? '50',
      // the benches measure capacity, not the gateway's per-client limiter (0 turns it off)
      GITHOST_RATE_LIMIT_PER_MINUTE: this.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
      GITHOST_RATE_LIMIT_ANON_PER_MINUTE: this.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
      GITHOST_GIT_RATE_LIMIT_PER_MINUTE: this.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
      GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: this.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
      GITHOST_LFS_RATE_LIMIT_PER_MINUTE: this.env.BENCH_RATE_LIMIT_PER_MINUTE ?? '0',
      GITHOST_PROCESS_PER_SERVICE: String(this.processPerService),
      // Each shard's own LFS listener, on loopback: the lfs part measures it beside the gateway's
      // path in the same githost (bench/README.md#lfs-git-lfs); BENCH_LFS_DIRECT=0 leaves it off.
      GITHOST_LFS_DIRECT: String(this.env.BENCH_LFS_DIRECT !== '0'),
      LFS_DIRECT_BIND_HOST: '127.0.0.1',
    };
    // A free port, not the default 2222: the ssh part finds the service by whether it listens here.
    this.sshPort = await freePort();
    env.SSH_PORT = String(this.sshPort);
    if (!this.embedded) {
      const db = await createTestDatabase('githost_bench');
      this.dropDatabase = db.drop;
      this.databaseName = db.name;
      this.databaseUrl = db.url;
      const probe = await openDatabase({ url: db.url, schema: 'public', poolSize: 1 });
      try {
        this.postgresAutovacuum = (await probe.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`)).rows[0]?.autovacuum;
      } finally {
        await probe.close();
      }
      Object.assign(env, { DATABASE_URL: db.url, AMQP_URL: this.amqpUrl, GITHOST_EVENTS_EXCHANGE: this.exchange, GITHOST_WEBHOOKS_QUEUE: this.queue, GITHOST_MERGE_REQUESTS_QUEUE: this.mergeRequestsQueue, GITHOST_ACCOUNTS_QUEUE: this.accountsQueue });
    } else {
      Object.assign(env, { DATABASE_URL: '', AMQP_URL: '' });
    }
    this.log(`starting githost (${this.embedded ? 'PGlite, in-process bus' : 'Postgres, RabbitMQ'}, ${this.processPerService ? 'one process per service' : 'all services in one process'}) ...`);
    const service = await startService(env);
    this.log(`githost on ${service.url}, services: ${service.services.join(', ') || 'unknown'}; processes: ${service.processes.map((p) => `${p.name} ${p.pid}`).join(', ')}`);
    return service;
  }

  /** Peak RSS of each githost process since the last call (one bench part); none before githost started. */
  async takeProcessPeaks(): Promise<{ peaks: RssPeaks; highWaterMarks: Record<string, number>; processes: NamedProcess[] } | undefined> {
    const service = await this.serviceP?.catch(() => undefined);
    if (!service) return undefined;
    return { peaks: service.rss.takePart(), highWaterMarks: service.rss.highWaterMarks(), processes: service.processes };
  }

  async close(): Promise<void> {
    if (this.serviceP) await (await this.serviceP.catch(() => undefined))?.stop();
    await this.dropDatabase?.().catch((err: unknown) => this.log(`could not drop the bench database: ${String(err)}`));
    if (!this.embedded && this.serviceP) await this.deleteBrokerObjects();
  }

  /** The run's exchange and queues are unique; leave nothing behind on the shared broker. */
  private async deleteBrokerObjects(): Promise<void> {
    await removeBrokerTopology(this.amqpUrl, this.exchange, [this.queue, this.mergeRequestsQueue, this.accountsQueue]).catch((err) =>
      this.log(`could not delete broker objects: ${String(err)}`),
    );
  }

}
