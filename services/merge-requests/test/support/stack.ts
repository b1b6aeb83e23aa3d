import { randomUUID } from 'node:crypto';
import { InProcessEventBus, type EventEnvelope } from '@githost/bus';
import { createTestDatabase } from '@githost/db';
import { grpc, startGrpcServer, unary, type GrpcListening } from '@githost/grpc';
import { createLogger } from '@githost/logging';
import { accountsProto, type accounts, type StorageServiceClient } from '@githost/protos';
import { cleanupWorkdirs, startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { createStorageRouter, singleShard, type StorageRouter } from '@githost/storage-router';
import type { Service } from '@githost/runtime';
import { createServer, type ServerDeps } from '../../src/server.js';
import { MR_DIFF_CACHE_BYTES, type Config } from '../../src/config.js';
import { SECRET } from './identity.js';

export const USERS = [
  { id: 'u-bob', username: 'bob', email: 'bob@example.com', is_admin: false },
  { id: 'u-carol', username: 'carol', email: 'carol@example.com', is_admin: false },
];
/** accounts' GetRefPolicy answers, by repository id; a repository not named has no rule. */
export const POLICIES = new Map<string, accounts.GetRefPolicyResponse>();

/** accounts' GetUsers over real gRPC, answering from a fixed list (the gateway e2e uses the real one). */
export function startAccountsStub(): Promise<GrpcListening> {
  return startGrpcServer((server) => {
    server.addService(accountsProto().githost.accounts.v1.AccountsService.service, {
      GetUsers: unary(async (req: accounts.GetUsersRequest__Output) => ({ users: USERS.filter((u) => req.ids.includes(u.id) || req.usernames.includes(u.username)) })),
      GetRefPolicy: unary(async (req: accounts.GetRefPolicyRequest__Output) => POLICIES.get(req.repository_id) ?? { default_branch: 'main', allow_tag_changes: false, protections: [] }),
    });
  }, 0, '127.0.0.1', [], SECRET);
}

export interface Stack {
  storage: TestStorage;
  accounts: GrpcListening;
  config: Config;
  bus: InProcessEventBus;
  events: EventEnvelope[];
  dropDb(): Promise<void>;
  service: Service;
  baseUrl: string;
  /** `GET /metrics` on the metrics port. */
  metricsUrl: string;
  /** Restarts the merge-requests service on the same database (a crash and restart). */
  restart(deps?: Partial<ServerDeps>): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(deps: Partial<ServerDeps> = {}, overrides: Partial<Config> = {}): Promise<Stack> {
  const storage = await startTestStorage({ secret: SECRET });
  const accounts = await startAccountsStub();
  const db = await createTestDatabase('githost_mr_svc');
  const bus = new InProcessEventBus();
  const events: EventEnvelope[] = [];
  await bus.subscribe(`test-${randomUUID()}`, ['merge_request'], async (e) => void events.push(e));
  const config: Config = {
    dataDir: storage.dataDir,
    databaseUrl: db.url,
    httpPort: 0,
    metricsPort: 0,
    bindHost: '127.0.0.1',
    internalSecret: SECRET,
    gitStorageShards: singleShard(storage.grpcAddress),
    accountsAddr: `127.0.0.1:${accounts.port}`,
    amqpUrl: undefined,
    eventsExchange: 'githost.events',
    eventsQueue: 'githost.merge-requests',
    publicUrl: 'http://githost.test',
    handledEventsRetentionDays: 7,
    diffCacheBytes: MR_DIFF_CACHE_BYTES,
    ...overrides,
  };
  const logger = createLogger('merge-requests', 'silent');
  const build = (extra: Partial<ServerDeps>) => createServer(config, { bus, logger, recovery: { intervalMs: 3600_000 }, ...deps, ...extra });
  const stack: Stack = {
    storage,
    accounts,
    config,
    bus,
    events,
    dropDb: db.drop,
    service: build({}),
    baseUrl: '',
    metricsUrl: '',
    async restart(extra = {}) {
      await stack.service.stop();
      stack.service = build(extra);
      const { httpPort, metricsPort } = await stack.service.start();
      stack.baseUrl = `http://127.0.0.1:${httpPort}`;
      stack.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    },
    async stop() {
      await stack.service.stop();
      await bus.close();
      await accounts.close(0);
      await storage.stop();
      await db.drop();
      await cleanupWorkdirs();
    },
  };
  const { httpPort, metricsPort } = await stack.service.start();
  stack.baseUrl = `http://127.0.0.1:${httpPort}`;
  stack.metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return stack;
}

type Method = (...args: unknown[]) => unknown;

/** Storage (one shard, `default`) over `client` with some of its methods replaced: `wrap` answers
 *  a stand-in for a method, or undefined to keep it. */
function storageWith(client: StorageServiceClient, wrap: (name: string, method: Method) => Method | undefined): StorageRouter {
  const intercepted = new Proxy(client, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = (value as Method).bind(target);
      return (typeof key === 'string' && wrap(key, method)) || method;
    },
  });
  return createStorageRouter(singleShard('default:0'), SECRET, { createClient: () => intercepted });
}

/** A gRPC callback, the last argument of a call. */
const callbackOf = (args: unknown[]) => args.at(-1) as (err: unknown, res?: unknown) => void;

/** Storage (one shard, `default`) whose UpdateRef runs `before` first: a push landing mid-merge, on cue. */
export function interceptUpdateRef(client: StorageServiceClient, before: () => Promise<void>): StorageRouter {
  return storageWith(client, (name, method) =>
    name === 'UpdateRef'
      ? (...args) =>
          void before().then(
            () => method(...args),
            (err: unknown) => callbackOf(args)(err),
          )
      : undefined,
  );
}

/**
 * git-storage as a merge sees it when the answer to its ref move is lost: UpdateRef is made for
 * real, then the caller is told UNAVAILABLE, and every call begun in the next `downMs` is refused
 * UNAVAILABLE too (git-storage not answering), after which calls go through again.
 */
export function loseUpdateRefAnswer(client: StorageServiceClient, downMs: number): StorageRouter {
  let downUntil = 0;
  const unavailableNow = () => Object.assign(new Error('14 UNAVAILABLE: connection lost'), { code: 14, details: 'connection lost', metadata: new grpc.Metadata() });
  return storageWith(client, (name, method) => {
    if (name === 'UpdateRef') {
      return (...args) =>
        method(...args.slice(0, -1), (err: unknown) => {
          downUntil = Date.now() + downMs;
          callbackOf(args)(err ?? unavailableNow());
        });
    }
    // The service's calls (capitalised, as in the proto), not the client's own methods.
    if (!/^[A-Z]/.test(name)) return undefined;
    return (...args) => (Date.now() < downUntil ? callbackOf(args)(unavailableNow()) : method(...args));
  });
}
