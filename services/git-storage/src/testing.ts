/**
 * Helpers for OTHER services' tests (and ours): a real git-storage on ports 0 in a temp dir, and
 * real git work trees to push from. Import from `@githost/git-storage/testing`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, freePort } from '@githost/test-support';
import type { EventBus } from '@githost/bus';
import { unavailable } from '@githost/errors';
import { encodeIdentity, type Identity } from '@githost/identity';
import { callUnary, grpc, startGrpcServer, unary } from '@githost/grpc';
import { accountsProto, createStorageClient, type AccountsServiceHandlers, type StorageServiceClient } from '@githost/protos';
import type { RefPolicy } from '@githost/ref-policy';
import type { Config } from './config.js';
import { repositoryPath } from './repository-path.js';
import { createServer, type GitStorageService } from './server.js';
import { COMPARE_BUDGET_DEFAULTS, type CompareBudget } from './git/compare.js';
import { HOUSEKEEPING_DEFAULTS, type HousekeepingOptions } from './housekeeping/housekeeper.js';
import { refsChanged } from './storage-context.js';

export interface TestStorage {
  /** `127.0.0.1:<port>` of the gRPC server. */
  grpcAddress: string;
  httpPort: number;
  /** The direct LFS listener's URL (LFS_DIRECT_URL) when `lfsDirectPath` was given. */
  lfsDirectUrl?: string;
  /** Where `GET /metrics` is served. */
  metricsPort: number;
  dataDir: string;
  config: Config;
  /** The secret smart HTTP requests must be signed with (`encodeIdentity`). */
  secret: string;
  service: GitStorageService;
  /** The fake accounts answering GetRefPolicy (absent when started with accountsGrpcAddress). */
  policies?: FakeRefPolicies;
  /** A ready storage client. */
  client: StorageServiceClient;
  /** Bare repository path of a repository id. */
  repoPath(repositoryId: string): string;
  stop(): Promise<void>;
}

const tempDirs = new Set<string>();

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Removes every work tree made by makeWorkdir() in this process. */
export async function cleanupWorkdirs(): Promise<void> {
  await Promise.all([...tempDirs].map((d) => rm(d, { recursive: true, force: true })));
  tempDirs.clear();
}

/** A real gRPC server answering accounts' GetRefPolicy from a table, for git-storage alone. */
export interface FakeRefPolicies {
  address: string;
  /** GetRefPolicy calls answered so far. */
  calls(): number;
  /** AdoptPushedBranches calls so far, as `<repository id> <branch>,<branch>...` (answered, changing nothing). */
  adoptions(): string[];
  /** Makes AdoptPushedBranches fail (unavailable) for a repository, or answer again. */
  failAdoptions(repositoryId: string, fail: boolean): void;
  /** A repository's policy (merged over DEFAULT_TEST_POLICY), or `unavailable` to make the call fail. */
  set(repositoryId: string, policy: Partial<RefPolicy> | 'unavailable'): void;
  close(): Promise<void>;
}

/** What a repository without set() gets: default branch `main`, no rules, existing tags fixed. */
export const DEFAULT_TEST_POLICY: RefPolicy = { default_branch: 'main', allow_tag_changes: false, protections: [] };

/** `secret`: the internal secret callers sign with (the storage under test's). */
export async function startFakeRefPolicies(secret: string): Promise<FakeRefPolicies> {
  const table = new Map<string, Partial<RefPolicy> | 'unavailable'>();
  let calls = 0;
  const adoptions: string[] = [];
  const failing = new Set<string>();
  const handlers: Partial<AccountsServiceHandlers> = {
    AdoptPushedBranches: unary(async (req) => {
      adoptions.push(`${req.repository_id} ${req.branches.join(',')}`);
      const p = table.get(req.repository_id) ?? {};
      if (p === 'unavailable' || failing.has(req.repository_id)) throw unavailable('accounts is down (test)');
      return { default_branch: p.default_branch ?? DEFAULT_TEST_POLICY.default_branch };
    }),
    GetRefPolicy: unary(async (req) => {
      calls++;
      const p = table.get(req.repository_id) ?? {};
      if (p === 'unavailable') throw unavailable('accounts is down (test)');
      return { ...DEFAULT_TEST_POLICY, ...p };
    }),
  };
  const listening = await startGrpcServer((server: grpc.Server) => {
    server.addService(accountsProto().githost.accounts.v1.AccountsService.service, handlers as grpc.UntypedServiceImplementation);
  }, 0, '127.0.0.1', [], secret);
  return {
    address: `127.0.0.1:${listening.port}`,
    calls: () => calls,
    adoptions: () => [...adoptions],
    failAdoptions: (id, fail) => void (fail ? failing.add(id) : failing.delete(id)),
    set: (id, policy) => void table.set(id, policy),
    close: () => listening.close(100),
  };
}

/** LFS_DIRECT_URL and LFS_DIRECT_PORT on a port free a moment ago (the URL must name the port
 *  before the listener starts), or neither. */
async function directListener(pathname: string | undefined): Promise<Pick<Config, 'lfsDirectUrl' | 'lfsDirectPort' | 'lfsDirectBindHost'>> {
  if (pathname === undefined) return { lfsDirectUrl: undefined, lfsDirectPort: 0, lfsDirectBindHost: '127.0.0.1' };
  const port = await freePort();
  return { lfsDirectUrl: `http://127.0.0.1:${port}${pathname}`, lfsDirectPort: port, lfsDirectBindHost: '127.0.0.1' };
}

export interface TestStorageOptions {
  bus?: EventBus;
  housekeepingDelayMs?: number;
  /** What one Compare may walk (default COMPARE_BUDGET_DEFAULTS). */
  compareBudget?: Partial<CompareBudget>;
  /** Housekeeping thresholds (HousekeepingOptions); `housekeepingDelayMs` wins for the delay. */
  housekeeping?: HousekeepingOptions;
  refsWatchAckTimeoutMs?: number;
  refsWatchHeartbeatMs?: number;
  /** A real accounts service's gRPC address; without it a FakeRefPolicies answers GetRefPolicy. */
  accountsGrpcAddress?: string;
  /** GITHOST_INTERNAL_SECRET, shared with that accounts service; default a random one. */
  secret?: string;
  /** Push bounds; unset ones take the configuration's defaults. */
  pushMaxBytes?: number;
  pushMaxFileBytes?: number;
  repositoryQuotaBytes?: number;
  pushIdleTimeoutMs?: number;
  lfsMaxObjectBytes?: number;
  /** Runs the direct LFS listener (LFS_DIRECT_URL) on a free loopback port, its URL ending in this
   *  path ('' for none). */
  lfsDirectPath?: string;
}

export async function startTestStorage(opts: TestStorageOptions = {}): Promise<TestStorage> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'githost-storage-'));
  const secret = opts.secret ?? `test-secret-${randomBytes(12).toString('hex')}`;
  const policies = opts.accountsGrpcAddress ? undefined : await startFakeRefPolicies(secret);
  const config: Config = {
    dataDir,
    httpPort: 0,
    metricsPort: 0,
    grpcPort: 0,
    bindHost: '127.0.0.1',
    internalSecret: secret,
    amqpUrl: undefined,
    accountsGrpcAddress: opts.accountsGrpcAddress ?? policies!.address,
    eventsExchange: 'githost.events',
    refsWatchAckTimeoutMs: opts.refsWatchAckTimeoutMs,
    refsWatchHeartbeatMs: opts.refsWatchHeartbeatMs,
    pushMaxBytes: opts.pushMaxBytes ?? 2 * 1024 ** 3,
    pushMaxFileBytes: opts.pushMaxFileBytes ?? 100 * 1024 ** 2,
    repositoryQuotaBytes: opts.repositoryQuotaBytes,
    pushIdleTimeoutMs: opts.pushIdleTimeoutMs ?? 60_000,
    lfsMaxObjectBytes: opts.lfsMaxObjectBytes ?? 5 * 1024 ** 3,
    publicUrl: 'http://localhost:3000',
    ...(await directListener(opts.lfsDirectPath)),
    housekeeping: { ...HOUSEKEEPING_DEFAULTS, memoryBytes: undefined },
    compareMaxWalkCommits: opts.compareBudget?.maxWalkCommits ?? COMPARE_BUDGET_DEFAULTS.maxWalkCommits,
    compareTimeoutMs: opts.compareBudget?.timeoutMs ?? COMPARE_BUDGET_DEFAULTS.timeoutMs,
  };
  const service = createServer(config, { bus: opts.bus, housekeeping: { ...opts.housekeeping, delayMs: opts.housekeepingDelayMs ?? 60_000 } });
  let ports: { httpPort: number; grpcPort: number; metricsPort: number; lfsDirectPort?: number };
  try {
    ports = await service.start();
  } catch (err) {
    // A failed start must not leave the fake policy server or half-started listeners holding jest open.
    await service.stop().catch(() => undefined);
    await policies?.close();
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const { httpPort, grpcPort, metricsPort } = ports;
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  const client = createStorageClient(grpcAddress, secret);
  return {
    grpcAddress,
    httpPort,
    lfsDirectUrl: config.lfsDirectUrl,
    metricsPort,
    dataDir,
    config,
    secret,
    service,
    policies,
    client,
    repoPath: (id) => repositoryPath(dataDir, id),
    async stop() {
      client.close();
      await service.stop();
      await policies?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment test git commands run with: no user or system config, fixed identity. */
export function testGitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: os.tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Committer',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    LANG: 'C',
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs git in `cwd`; resolves stdout (untrimmed), rejects with stderr in the message. */
export function git(cwd: string, ...args: string[]): Promise<string> {
  return gitWithEnv(cwd, {}, ...args);
}

export function gitWithEnv(cwd: string, env: Record<string, string>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: testGitEnv(env), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** A fresh work tree (`git init -b main`) in a temp dir. */
export async function makeWorkdir(): Promise<string> {
  const dir = await tempDir('githost-work-');
  await git(dir, 'init', '-q', '-b', 'main');
  return dir;
}

/** Writes files (creating directories) relative to the work tree. */
export async function writeFiles(workdir: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(workdir, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** `git add -A && git commit`; returns the new commit's sha. `date` is any date git accepts. */
export async function commitAll(workdir: string, message: string, opts: { date?: string; author?: { name: string; email: string } } = {}): Promise<string> {
  const env: Record<string, string> = {};
  if (opts.date) {
    env.GIT_AUTHOR_DATE = opts.date;
    env.GIT_COMMITTER_DATE = opts.date;
  }
  if (opts.author) {
    env.GIT_AUTHOR_NAME = opts.author.name;
    env.GIT_AUTHOR_EMAIL = opts.author.email;
  }
  await git(workdir, 'add', '-A');
  await gitWithEnv(workdir, env, 'commit', '-q', '--allow-empty', '-m', message);
  return (await git(workdir, 'rev-parse', 'HEAD')).trim();
}

/**
 * Pushes straight to the bare repository over file:// (no HTTP, so no push events), then tells
 * the running storage that refs changed.
 */
export async function pushTo(storage: TestStorage, repositoryId: string, workdir: string, ...refspecs: string[]): Promise<void> {
  const gitDir = storage.repoPath(repositoryId);
  await git(workdir, 'push', '-q', `file://${gitDir}`, ...(refspecs.length > 0 ? refspecs : ['HEAD']));
  await refsChanged(storage.service.context, gitDir, repositoryId);
}

/** alice with write permission on `repositoryId` (named after it), as the gateway would sign her. */
export function writerIdentity(repositoryId: string): Identity {
  return {
    principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false },
    repo: { id: repositoryId, owner: 'alice', name: repositoryId, default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u-alice' },
    request_id: `req-${repositoryId}`,
    issued_at: Date.now(),
  };
}

/** git `-c http.extraHeader=...` arguments carrying `identity` signed with `secret`. */
export function identityHeaderArgs(identity: Identity, secret: string): string[] {
  return Object.entries(encodeIdentity(identity, secret)).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
}

/** `probe`'s first answer other than undefined, asked every 20 ms for up to `ms`; undefined if none came. */
export async function polled<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The pid of a running `git <subcommand>` on `gitDir`, polled from /proc until it appears. */
export async function gitRunning(subcommand: string, gitDir: string, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let argv: string[];
      try {
        argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      } catch {
        continue;
      }
      if (argv[0]?.endsWith('git') && argv.includes(subcommand) && argv.some((a) => a.includes(gitDir))) return Number(entry);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`git ${subcommand} never ran on ${gitDir}`);
}

/** Kept for existing tests: `callUnary` infers the response type itself now. */
export const rpc = callUnary;

/** Creates a repository through the real gRPC CreateRepository. */
export async function createTestRepository(storage: TestStorage, id: string, defaultBranch = 'main'): Promise<void> {
  await callUnary(storage.client, storage.client.CreateRepository, { repository_id: id, default_branch: defaultBranch });
}

/** dist/main.js: git-storage as its own process, for tests that kill it. */
const MAIN_SCRIPT = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface StorageProcessOptions {
  dataDir: string;
  httpPort: number;
  grpcPort: number;
  secret: string;
  /** GetRefPolicy's answerer (a FakeRefPolicies' address). */
  accountsAddress: string;
  env?: Record<string, string>;
}

/** Starts dist/main.js on `dataDir`; resolves once it serves HTTP. */
export async function startStorageProcess(opts: StorageProcessOptions): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN_SCRIPT], {
    env: {
      PATH: process.env.PATH,
      DATA_DIR: opts.dataDir,
      HTTP_PORT: String(opts.httpPort),
      GRPC_PORT: String(opts.grpcPort),
      METRICS_PORT: '0',
      BIND_HOST: '127.0.0.1',
      GITHOST_INTERNAL_SECRET: opts.secret,
      ACCOUNTS_GRPC_ADDR: opts.accountsAddress,
      LOG_LEVEL: 'warn',
      ...opts.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`git-storage exited with ${child.exitCode}`);
    try {
      return (await fetch(`http://127.0.0.1:${opts.httpPort}/healthz`)).ok ? true : undefined;
    } catch {
      return undefined;
    }
  }, 60_000);
  return child;
}

/** Sends `signal` and waits until the process is gone. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

export interface StorageProcess {
  dataDir: string;
  policies: FakeRefPolicies;
  ports: { http: number; grpc: number };
  child: ChildProcess;
}

/** git-storage as its own process on a fresh data dir (`<tmp>/<prefix>…/data`) with free ports,
 *  `repositoryId` created in it. */
export async function startStorageProcessWithRepository(prefix: string, secret: string, repositoryId: string): Promise<StorageProcess> {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), prefix)), 'data');
  const policies = await startFakeRefPolicies(secret);
  const ports = { http: await freePort(), grpc: await freePort() };
  const child = await startStorageProcess({ dataDir, httpPort: ports.http, grpcPort: ports.grpc, secret, accountsAddress: policies.address });
  const client = createStorageClient(`127.0.0.1:${ports.grpc}`, secret);
  await callUnary(client, client.CreateRepository, { repository_id: repositoryId, default_branch: 'main' });
  client.close();
  return { dataDir, policies, ports, child };
}
