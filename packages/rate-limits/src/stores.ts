import { createHash } from 'node:crypto';
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
/** The most units of a budget one Redis round trip takes for this process (docs/decisions/shared-rate-limits.md#leases). */
export const MAX_LEASE = 64;
/** A lease unused this long is given back to Redis, so the other replicas can spend it. */
export const LEASE_IDLE_MS = 1_000;
/** Nothing is given back this close to a window's end: the key may be a new window's by then. */
const GIVE_BACK_MARGIN_MS = 1_000;

/**
 * How many units one round trip takes for a budget of `perMinute`: 1 % of it, at least 1 and at
 * most MAX_LEASE. Up to one lease less one unit is what a replica may hold unspent, the whole
 * inexactness of a shared budget (docs/decisions/shared-rate-limits.md#leases): budgets under 200
 * a minute are counted one request per round trip, exactly as before.
 */
export function leaseSize(perMinute: number): number {
  return Math.max(1, Math.min(MAX_LEASE, Math.floor(perMinute / 100)));
}

/**
 * Takes up to ARGV[2] units of KEYS[1]'s budget of ARGV[1], never past it; the key's window
 * (ARGV[3] ms) starts with its first unit. Returns the count after, the units taken and the
 * window's time left. A request past the budget takes nothing and is not counted: it may be
 * refused only because another replica holds units it will give back, which must then all be
 * spendable (the count it would make is returned, to be refused).
 */
const TAKE_SCRIPT = `local limit = tonumber(ARGV[1])
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local grant = math.min(tonumber(ARGV[2]), limit - spent)
if grant < 1 then
  return { spent + 1, 0, redis.call('PTTL', KEYS[1]) }
end
local total = redis.call('INCRBY', KEYS[1], grant)
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return { total, grant, ttl }`;
const TAKE_SHA = createHash('sha1').update(TAKE_SCRIPT).digest('hex');

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
  /** Spends one of `key`'s `perMinute` on `name`; whether it was within (0: no limit). One
   *  round trip per call: the store a limiter uses (`store`) takes leases, this does not. */
  spend(name: BudgetName, key: string, perMinute: number): Promise<boolean>;
  close(): Promise<void>;
}


/**
 * The counters behind every rate limit (docs/decisions/shared-rate-limits.md). With REDIS_URL,
 * in Redis, so every gateway replica and every SSH process spends the same budgets: a limiter's
 * store takes a budget of 200 a minute or more in leases of several units per round trip
 * (leaseSize, docs/decisions/shared-rate-limits.md#leases), smaller ones and `spend` with
 * rate-limit-redis's INCR+PEXPIRE script per request; without it, in this process (express-rate-limit's
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

  const sendCommand: SendCommand = (...args: string[]) => redis!.sendCommand(args) as Promise<RedisReply>;

  const stores: LimitStores = {
    shared: url !== undefined,
    get sharedNow() {
      return up;
    },
    store(name) {
      let store = made.get(name);
      if (!store) {
        const keyPrefix = `${prefix}${name}:`;
        store = new SharedStore(keyPrefix, redisStoreClass?.then((RedisStoreClass) => new RedisStoreClass({ sendCommand, prefix: keyPrefix })), shared, url ? sendCommand : undefined);
        made.set(name, store);
      }
      return store;
    },
    async spend(name, key, perMinute) {
      if (perMinute <= 0) return true;
      // One round trip each, no lease: the SSH service's githost-serve is a process per command,
      // which would take a lease for one request (docs/decisions/shared-rate-limits.md#leases).
      const { totalHits } = await stores.store(name).increment(key);
      return totalHits <= perMinute;
    },
    async close() {
      // Units taken and not spent go back, so a stopping replica does not shrink the budgets.
      await Promise.all([...made.values()].map((store) => store.giveBack(() => true)));
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

type SendCommand = (...args: string[]) => Promise<RedisReply>;

/** Units of one key's budget taken from Redis by one round trip and not spent yet. */
interface Lease {
  /** The key's count in Redis when the units were taken (theirs included): at most the budget. */
  total: number;
  left: number;
  /** When the key's window ends (its time to live in Redis, from when it answered). */
  end: number;
  lastUsed: number;
}

/** One budget's counter: Redis's while it answers (in leases when its budget is known), this
 *  process's own meanwhile. */
class SharedStore implements Store {
  readonly localKeys: boolean;
  private readonly local = new MemoryStore();
  /** The limiter's budget (express-rate-limit passes it to `init`); unknown, no leases. */
  private limit: number | undefined;
  private readonly leases = new Map<string, Lease>();
  private readonly sweeper: NodeJS.Timeout | undefined;

  /** The Redis store's scripts are loaded on its first command and again after any failure:
   *  its `init` remembers a failed load for good, so a Redis that was down at start, or came
   *  back empty, would otherwise never be used again. */
  private loaded: Promise<void> | undefined;

  constructor(
    readonly prefix: string,
    private readonly redis: Promise<RedisStore> | undefined,
    private readonly shared: Shared,
    private readonly send?: SendCommand,
  ) {
    this.localKeys = redis === undefined;
    this.local.init({ windowMs: WINDOW_MS } as Options);
    if (send) {
      this.sweeper = setInterval(() => void this.giveBack((lease, now) => now - lease.lastUsed >= LEASE_IDLE_MS), LEASE_IDLE_MS);
      this.sweeper.unref();
    }
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

  /** express-rate-limit passes its options: the budget is kept for the leases; the window is
   *  WINDOW_MS whatever they say. */
  init(options?: Partial<Options>): void {
    if (typeof options?.limit === 'number') this.limit = options.limit;
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.incrementWithin(key, this.limit);
  }

  /**
   * Spends one unit of `key`'s budget of `perMinute`: from this process's lease while it has one
   * in the key's window, else with one round trip that takes the next lease (leaseSize). Without a
   * known budget (or a budget of one a round trip), one INCR per request, as rate-limit-redis does.
   */
  incrementWithin(key: string, perMinute: number | undefined): Promise<IncrementResponse> {
    const size = perMinute === undefined ? 1 : leaseSize(perMinute);
    if (!this.send || size === 1) return this.shared(this.remote((r) => r.increment(key)), () => this.local.increment(key));
    const now = Date.now();
    const lease = this.leases.get(key);
    if (lease && lease.left > 0 && now < lease.end) {
      lease.left -= 1;
      lease.lastUsed = now;
      return Promise.resolve({ totalHits: lease.total - lease.left, resetTime: new Date(lease.end) });
    }
    return this.shared(async () => this.take(key, perMinute!, size), () => this.local.increment(key));
  }

  /** One round trip: the next lease of `key`, one unit of it spent on this request. */
  private async take(key: string, perMinute: number, size: number): Promise<IncrementResponse> {
    const args = ['1', this.prefix + key, String(perMinute), String(size), String(WINDOW_MS)];
    const reply = (await this.send!('EVALSHA', TAKE_SHA, ...args).catch((err: unknown) => {
      // Redis restarted, or this is the first take: the script is sent whole once.
      if (!String(err).includes('NOSCRIPT')) throw err;
      return this.send!('EVAL', TAKE_SCRIPT, ...args);
    })) as [number, number, number];
    const [total, taken, ttl] = reply.map(Number) as [number, number, number];
    const now = Date.now();
    const end = now + (ttl > 0 ? ttl : WINDOW_MS);
    // Past the budget: nothing taken, the request is refused.
    if (taken === 0) return { totalHits: total, resetTime: new Date(end) };
    const left = taken - 1;
    if (left > 0) {
      const held = this.leases.get(key);
      // Two requests may take leases at once: the second adds to the first's if of the same window.
      if (held && held.left > 0 && Math.abs(held.end - end) < GIVE_BACK_MARGIN_MS) {
        held.left += left;
        held.total = Math.max(held.total, total);
        held.lastUsed = now;
      } else this.leases.set(key, { total, left, end, lastUsed: now });
    }
    return { totalHits: total - left, resetTime: new Date(end) };
  }

  /** Gives the unspent units of the leases `which` picks back to Redis (and forgets those and
   *  every lease whose window ended). A failure loses them until the window ends: fewer admitted,
   *  never more. */
  async giveBack(which: (lease: Lease, now: number) => boolean): Promise<void> {
    const now = Date.now();
    const back: Array<Promise<unknown>> = [];
    for (const [key, lease] of this.leases) {
      if (now >= lease.end) this.leases.delete(key);
      else if (which(lease, now)) {
        this.leases.delete(key);
        if (lease.left > 0 && lease.end - now > GIVE_BACK_MARGIN_MS) back.push(this.shared(async () => this.send!('DECRBY', this.prefix + key, String(lease.left)), () => undefined));
      }
    }
    await Promise.all(back);
  }

  decrement(key: string): Promise<void> {
    return this.shared(this.remote((r) => r.decrement(key)), () => this.local.decrement(key));
  }

  resetKey(key: string): Promise<void> {
    this.leases.delete(key);
    return this.shared(this.remote((r) => r.resetKey(key)), () => this.local.resetKey(key));
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.shared(this.remote((r) => r.get(key)), () => this.local.get(key));
  }

  shutdown(): void {
    clearInterval(this.sweeper);
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
