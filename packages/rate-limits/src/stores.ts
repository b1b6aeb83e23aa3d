import { MemoryStore, type ClientRateLimitInfo, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { RedisStore, RedisReply } from 'rate-limit-redis';
import type * as Redis from 'redis';
import client from 'prom-client';
import { createLogger, type Logger } from '@githost/logging';
import { WINDOW_MS, type BudgetName } from './budgets.js';

/** GITHOST_RATE_LIMIT_PREFIX's default: the start of every counter's key in Redis. */
export const DEFAULT_PREFIX = 'githost:rl:';
/** How long one Redis command may take before the request is counted in this process instead. */
export const DEFAULT_TIMEOUT_MS = 250;
/** How long the first command waits for the first connection (a new process, a new connection). */
const FIRST_CONNECTION_MS = 1_000;
/** After a failure, how long requests are counted here before Redis is asked again. */
export const DEFAULT_RETRY_MS = 1_000;

export interface LimitStoreSettings {
  /** REDIS_URL: counters shared by every replica; absent, each process counts its own (the embedded mode). */
  url?: string | undefined;
  /** GITHOST_RATE_LIMIT_PREFIX: put before every key, so deployments (and test runs) sharing a Redis keep apart. */
  prefix?: string;
  /** Where the one line of an outage (and of its end) goes; default a `rate-limits` logger. */
  logger?: Logger;
  /** Where the store's metrics go, named `githost_<service>_rate_limit_…`. */
  registry?: client.Registry;
  service: string;
  timeoutMs?: number;
  retryMs?: number;
}

export interface LimitStores {
  /** Whether counters are meant to be in Redis (REDIS_URL set), whether or not it answers now. */
  readonly shared: boolean;
  /** Whether the last Redis command answered (always false without REDIS_URL). */
  readonly sharedNow: boolean;
  /** A budget's counter, an express-rate-limit Store (one per limiter: the library refuses a
   *  store used by two), counting in fixed windows of WINDOW_MS. */
  store(name: BudgetName): Store;
  /** Spends one of `key`'s `perMinute` on `name`; whether it was within (0: no limit). */
  spend(name: BudgetName, key: string, perMinute: number): Promise<boolean>;
  close(): Promise<void>;
}


/**
 * The counters behind every rate limit (docs/decisions/shared-rate-limits.md). With REDIS_URL,
 * in Redis via rate-limit-redis (one INCR+PEXPIRE script per request), so every gateway replica
 * and every SSH process spends the same budgets; without it, in this process (express-rate-limit's
 * MemoryStore), as before. When Redis does not answer (down, paused, unreachable, slower than
 * `timeoutMs`) each counter falls back to this process's own count (docs/decisions/shared-rate-limits.md#when-redis-is-down)
 * with one log line and the `rate_limit_store_up` gauge at 0, and asks Redis again `retryMs`
 * later: once it answers, counts are shared again, with one line saying so.
 */
export function createLimitStores(settings: LimitStoreSettings): LimitStores {
  const prefix = settings.prefix ?? DEFAULT_PREFIX;
  const timeoutMs = settings.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryMs = settings.retryMs ?? DEFAULT_RETRY_MS;
  const logger = settings.logger ?? (settings.url ? createLogger('rate-limits') : undefined);
  // Without REDIS_URL there is no store to watch: no metrics, as before.
  const metrics = settings.registry && settings.url ? storeMetrics(settings.registry, settings.service) : undefined;
  // Loaded only with REDIS_URL: the Redis client is most of this package's memory, which a
  // process counting its own (the SSH service without Redis) does not need (docs/decisions/ssh-server.md#memory).
  const url = settings.url;
  const redisP: Promise<Client> | undefined = url ? import('redis').then(({ createClient }) => connect(createClient, url)) : undefined;
  let redis: Client | undefined;
  // The first commands wait for the first connection (a githost-serve's one command comes right
  // after it starts); after that, a command while disconnected fails at once.
  let connected = false;
  let answered = false;
  const firstConnection = redisP?.then((client) => (redis = client).connect()).then(
    () => void (connected = true),
    () => undefined,
  );
  const redisStoreClass = url ? import('rate-limit-redis').then((m) => m.RedisStore) : undefined;
  const made = new Map<BudgetName, SharedStore>();
  let up = false;
  let retryAt = 0;
  metrics?.up.set(0);

  /** Runs `remote` against Redis, or `local` while it does not answer. */
  async function shared<T>(remote: (() => Promise<T>) | undefined, local: () => T | Promise<T>): Promise<T> {
    if (!remote) return local();
    if (!up && Date.now() < retryAt) {
      metrics?.fallback.inc();
      return local();
    }
    try {
      // Until Redis has answered once, the connection and the scripts' loading get longer.
      const first = !answered;
      // Loading the client's modules is this process's own work, not Redis's: outside the timeout.
      if (!connected) await Promise.all([redisP, redisStoreClass]).then(() => withTimeout(firstConnection!, Math.max(timeoutMs, FIRST_CONNECTION_MS)));
      const value = await withTimeout(remote(), first ? Math.max(timeoutMs, FIRST_CONNECTION_MS) : timeoutMs);
      answered = true;
      if (!up) {
        up = true;
        metrics?.up.set(1);
        // The first answer after start is not news; one after an outage is.
        if (retryAt !== 0) logger?.warn({ store: 'redis' }, 'rate limits: Redis answers again, counters are shared across replicas');
      }
      return value;
    } catch (err) {
      metrics?.errors.inc();
      metrics?.fallback.inc();
      // `retryAt !== 0` after the first failure: a Redis down from the start is reported once too.
      if (up || retryAt === 0) logger?.error({ err, store: 'redis' }, 'rate limits: Redis does not answer, each process counts its own until it does');
      up = false;
      retryAt = Date.now() + retryMs;
      metrics?.up.set(0);
      return local();
    }
  }

  const sendCommand = (...args: string[]) => redis!.sendCommand(args) as Promise<RedisReply>;

  const stores: LimitStores = {
    shared: url !== undefined,
    get sharedNow() {
      return up;
    },
    store(name) {
      let store = made.get(name);
      if (!store) {
        const keyPrefix = `${prefix}${name}:`;
        store = new SharedStore(keyPrefix, redisStoreClass?.then((RedisStoreClass) => new RedisStoreClass({ sendCommand, prefix: keyPrefix })), shared);
        made.set(name, store);
      }
      return store;
    },
    async spend(name, key, perMinute) {
      if (perMinute <= 0) return true;
      const { totalHits } = await stores.store(name).increment(key);
      return totalHits <= perMinute;
    },
    async close() {
      for (const store of made.values()) store.shutdown();
      // The client exists as soon as its module loaded, whether or not it ever connected.
      const client = redis ?? (await redisP?.catch(() => undefined));
      if (client?.isReady) await client.close().catch(() => client.destroy());
      else if (client?.isOpen) client.destroy();
    },
  };
  return stores;
}

type Shared = <T>(remote: (() => Promise<T>) | undefined, local: () => T | Promise<T>) => Promise<T>;

/** One budget's counter: Redis's while it answers, this process's own meanwhile. */
class SharedStore implements Store {
  readonly localKeys: boolean;
  private readonly local = new MemoryStore();

  /** The Redis store's scripts are loaded on its first command and again after any failure:
   *  its `init` remembers a failed load for good, so a Redis that was down at start, or came
   *  back empty, would otherwise never be used again. */
  private loaded: Promise<void> | undefined;

  constructor(
    readonly prefix: string,
    private readonly redis: Promise<RedisStore> | undefined,
    private readonly shared: Shared,
  ) {
    this.localKeys = redis === undefined;
    this.local.init({ windowMs: WINDOW_MS } as Options);
  }

  private remote<T>(run: (redis: RedisStore) => Promise<T>): (() => Promise<T>) | undefined {
    const redisP = this.redis;
    if (!redisP) return undefined;
    return async () => {
      try {
        const redis = await redisP;
        await (this.loaded ??= redis.init({ windowMs: WINDOW_MS } as Options));
        return await run(redis);
      } catch (err) {
        this.loaded = undefined;
        throw err;
      }
    };
  }

  /** express-rate-limit passes its options; the window is WINDOW_MS whatever they say. */
  init(): void {}

  increment(key: string): Promise<IncrementResponse> {
    return this.shared(this.remote((r) => r.increment(key)), () => this.local.increment(key));
  }

  decrement(key: string): Promise<void> {
    return this.shared(this.remote((r) => r.decrement(key)), () => this.local.decrement(key));
  }

  resetKey(key: string): Promise<void> {
    return this.shared(this.remote((r) => r.resetKey(key)), () => this.local.resetKey(key));
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.shared(this.remote((r) => r.get(key)), () => this.local.get(key));
  }

  shutdown(): void {
    this.local.shutdown();
  }
}

function connect(createClient: typeof Redis.createClient, url: string) {
  const c = createClient({
    url,
    // A command while disconnected fails at once (and the request is counted here) instead of
    // waiting in a queue for a Redis that may not come back soon.
    disableOfflineQueue: true,
    socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000) },
  });
  // Reported once per outage by `shared` below; the client's own reconnection errors are noise.
  c.on('error', () => undefined);
  return c;
}

type Client = ReturnType<typeof connect>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function storeMetrics(registry: client.Registry, service: string) {
  const name = (what: string) => `githost_${service.replace(/-/g, '_')}_rate_limit_${what}`;
  return {
    up: new client.Gauge({ name: name('store_up'), help: 'Whether rate-limit counters are shared in Redis now (1) or counted in this process because Redis does not answer (0)', registers: [registry] }),
    errors: new client.Counter({ name: name('store_errors_total'), help: 'Redis commands of the rate limits that failed or timed out', registers: [registry] }),
    fallback: new client.Counter({ name: name('local_counts_total'), help: 'Requests counted in this process because Redis did not answer', registers: [registry] }),
  };
}
