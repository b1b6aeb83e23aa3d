import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@githost/test-support';

/**
 * githost as Kubernetes runs it: every service its own process started from its container entry
 * point (`<package>/dist/main.js`), on fixed loopback ports so a restarted pod is found at the same
 * address, its own DATA_DIR (volume) each, one database and one set of broker names per run.
 * A killed service stays down until `start` is called again, as a pod waits for its restart.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const SERVICES = ['git-storage', 'accounts', 'browse', 'merge-requests', 'webhooks', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

const MAIN: Record<ServiceName, string> = {
  'git-storage': 'services/git-storage/dist/main.js',
  accounts: 'services/accounts/dist/main.js',
  browse: 'services/browse/dist/main.js',
  'merge-requests': 'services/merge-requests/dist/main.js',
  webhooks: 'services/webhooks/dist/main.js',
  gateway: 'gateway/dist/main.js',
};

interface Ports {
  http: number;
  grpc: number;
  /** Chosen too: a service binding port 0 for its metrics could take a port another service
   *  is about to be started (or restarted) on. */
  metrics: number;
}

export interface ClusterOptions {
  dataDir: string;
  databaseUrl: string;
  amqpUrl: string;
  /** Broker names of this run. */
  exchange: string;
  webhooksQueue: string;
  mergeRequestsQueue: string;
  accountsQueue: string;
}

export class Cluster {
  readonly adminToken = `faults-admin-${randomBytes(16).toString('hex')}`;
  readonly secret = randomBytes(32).toString('hex');
  private readonly ports = new Map<ServiceName, Ports>();
  private readonly procs = new Map<ServiceName, ChildProcess>();
  private readonly logs = new Map<ServiceName, WriteStream>();
  publicPort = 0;

  constructor(readonly opts: ClusterOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.publicPort}`;
  }

  /** A service's own HTTP address (its /readyz). */
  httpUrl(name: ServiceName): string {
    return name === 'gateway' ? this.url : `http://127.0.0.1:${this.ports.get(name)!.http}`;
  }

  dataDirOf(name: ServiceName): string {
    return path.join(this.opts.dataDir, name);
  }

  logFile(name: ServiceName): string {
    return path.join(this.opts.dataDir, `${name}.log`);
  }

  pid(name: ServiceName): number | undefined {
    return this.procs.get(name)?.pid;
  }

  async init(): Promise<void> {
    for (const name of SERVICES) this.ports.set(name, { http: await freePort(), grpc: await freePort(), metrics: await freePort() });
    this.publicPort = this.ports.get('gateway')!.http;
  }

  private env(name: ServiceName, extra: Record<string, string>): NodeJS.ProcessEnv {
    const p = (n: ServiceName) => this.ports.get(n)!;
    const own = p(name);
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'warn',
      DATA_DIR: this.dataDirOf(name),
      DATABASE_URL: this.opts.databaseUrl,
      AMQP_URL: this.opts.amqpUrl,
      GITHOST_EVENTS_EXCHANGE: this.opts.exchange,
      GITHOST_WEBHOOKS_QUEUE: this.opts.webhooksQueue,
      GITHOST_MERGE_REQUESTS_QUEUE: this.opts.mergeRequestsQueue,
      GITHOST_ACCOUNTS_QUEUE: this.opts.accountsQueue,
      GITHOST_INTERNAL_SECRET: this.secret,
      GITHOST_ADMIN_TOKEN: this.adminToken,
      GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
      GITHOST_WEBHOOK_RETRY_BASE_MS: '200',
      GITHOST_WEBHOOK_MAX_ATTEMPTS: '20',
      GITHOST_RATE_LIMIT_PER_MINUTE: '1000000',
      GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '1000000',
      GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '1000000',
      GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '1000000',
      PUBLIC_URL: this.url,
      BIND_HOST: '127.0.0.1',
      METRICS_PORT: String(own.metrics),
      HTTP_PORT: String(own.http),
      GRPC_PORT: String(own.grpc),
      PORT: String(p('gateway').http),
      GIT_STORAGE_GRPC_ADDR: `127.0.0.1:${p('git-storage').grpc}`,
      GIT_STORAGE_HTTP_URL: `http://127.0.0.1:${p('git-storage').http}`,
      ACCOUNTS_GRPC_ADDR: `127.0.0.1:${p('accounts').grpc}`,
      ACCOUNTS_HTTP_URL: `http://127.0.0.1:${p('accounts').http}`,
      BROWSE_URL: `http://127.0.0.1:${p('browse').http}`,
      MERGE_REQUESTS_URL: `http://127.0.0.1:${p('merge-requests').http}`,
      WEBHOOKS_URL: `http://127.0.0.1:${p('webhooks').http}`,
      ...extra,
    };
  }

  /** Starts (or restarts) one service; resolves once it listens (not necessarily ready). */
  async start(name: ServiceName, extra: Record<string, string> = {}): Promise<void> {
    mkdirSync(this.dataDirOf(name), { recursive: true, mode: 0o700 });
    let log = this.logs.get(name);
    if (!log) this.logs.set(name, (log = createWriteStream(this.logFile(name), { flags: 'a' })));
    const child = spawn(process.execPath, [path.join(ROOT, MAIN[name])], { env: this.env(name, extra), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    this.procs.set(name, child);
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const gone = this.exited(name);
      if (gone) throw new Error(`${name} ${gone} while starting; see ${this.logFile(name)}`);
      // Answered, and still running: a process that lost its port to another would be gone.
      if ((await probe(`${this.httpUrl(name)}/healthz`)).status === 200 && !this.exited(name)) return;
      await sleep(100);
    }
    throw new Error(`${name} did not answer /healthz within 90 s; see ${this.logFile(name)}`);
  }

  async startAll(): Promise<void> {
    await this.start('git-storage');
    await this.start('accounts');
    await Promise.all((['browse', 'merge-requests', 'webhooks'] as const).map((n) => this.start(n)));
    await this.start('gateway');
  }

  /** kill -9, as a node failure or the OOM killer does; resolves once the process is gone. */
  async kill(name: ServiceName): Promise<void> {
    const child = this.procs.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Every service's /readyz, by name: its status, and for a 503 the dependencies it names. */
  async readiness(): Promise<Record<ServiceName, Readiness>> {
    const entries = await Promise.all(SERVICES.map(async (n) => [n, await probe(`${this.httpUrl(n)}/readyz`)] as const));
    return Object.fromEntries(entries) as Record<ServiceName, Readiness>;
  }

  /** Waits until every service reports ready by itself; returns those that never did, each with
   *  what it waits for and the end of its log. */
  async waitAllReady(withinMs: number): Promise<string[]> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const r = await this.readiness();
      // A service that exited is not ready, whatever answers on its port.
      const notReady = SERVICES.filter((n) => r[n].status !== 200 || this.exited(n));
      if (notReady.length === 0) return [];
      if (Date.now() > deadline) return notReady.map((n) => `${n} (${this.exited(n) ?? r[n].status}${r[n].failing.length ? `, waiting for ${r[n].failing.join(', ')}` : ''})\n${this.logTail(n)}`);
      await sleep(250);
    }
  }

  /** How a service's process ended, when it did (a killed one stays down until `start`). */
  private exited(name: ServiceName): string | undefined {
    const child = this.procs.get(name);
    if (!child || (child.exitCode === null && child.signalCode === null)) return undefined;
    return `exited ${child.exitCode ?? child.signalCode}`;
  }

  /** The last lines a service logged, for a failure's message. */
  logTail(name: ServiceName, lines = 15): string {
    try {
      return readFileSync(this.logFile(name), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async stop(): Promise<void> {
    for (const name of [...SERVICES].reverse()) {
      const child = this.procs.get(name);
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const log of this.logs.values()) log.end();
  }
}

export interface Readiness {
  /** 0 when nothing answered within 2 s. */
  status: number;
  failing: string[];
}

/** A GET of a health path: its status, and the dependencies a 503 names. */
async function probe(url: string): Promise<Readiness> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json().catch(() => ({}))) as { failing?: string[] };
    return { status: res.status, failing: body.failing ?? [] };
  } catch {
    return { status: 0, failing: [] };
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
