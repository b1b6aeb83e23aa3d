import { env, loadConfig as load, serviceListenEnv, serviceListenFields, unlessBlank, z } from '@githost/config';
import { COMPARE_BUDGET_DEFAULTS } from './git/compare.js';
import { HOUSEKEEPING_DEFAULTS } from './housekeeping/housekeeper.js';

const schema = z
  .object({
    DATA_DIR: env.dataDir(),
    ...serviceListenEnv(3101),
    GRPC_PORT: env.port(3102),
    AMQP_URL: env.amqpUrl(),
    ACCOUNTS_GRPC_ADDR: env.address(),
    GITHOST_EVENTS_EXCHANGE: env.eventsExchange(),
    REFS_WATCH_ACK_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
    REFS_WATCH_HEARTBEAT_MS: z.coerce.number().int().min(1).optional(),
    PUSH_MAX_BYTES: bytes().default(2 * 1024 ** 3),
    PUSH_MAX_FILE_BYTES: bytes().default(100 * 1024 ** 2),
    REPOSITORY_QUOTA_BYTES: unlessBlank(bytes().optional()),
    PUSH_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
    LFS_MAX_OBJECT_BYTES: bytes().default(5 * 1024 ** 3),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
    LFS_DIRECT_URL: unlessBlank(z.string().url().refine((u) => /^https?:$/.test(new URL(u).protocol), 'must be an http(s) URL').optional()),
    LFS_DIRECT_PORT: env.port(3104),
    LFS_DIRECT_BIND_HOST: unlessBlank(env.bindHost().optional()),
    COMPARE_MAX_WALK_COMMITS: z.coerce.number().int().min(1).default(COMPARE_BUDGET_DEFAULTS.maxWalkCommits),
    COMPARE_TIMEOUT_MS: z.coerce.number().int().min(1).default(COMPARE_BUDGET_DEFAULTS.timeoutMs),
    HOUSEKEEPING_DELAY_MS: z.coerce.number().int().min(0).default(HOUSEKEEPING_DEFAULTS.delayMs),
    HOUSEKEEPING_CONCURRENCY: z.coerce.number().int().min(1).default(HOUSEKEEPING_DEFAULTS.concurrency),
    HOUSEKEEPING_LOOSE_OBJECTS: z.coerce.number().int().min(0).default(HOUSEKEEPING_DEFAULTS.looseObjectsLimit),
    HOUSEKEEPING_LOOSE_REFS: z.coerce.number().int().min(0).default(HOUSEKEEPING_DEFAULTS.looseRefsLimit),
    HOUSEKEEPING_MAX_PACKS: z.coerce.number().int().min(0).default(HOUSEKEEPING_DEFAULTS.packsLimit),
    HOUSEKEEPING_MEMORY_BYTES: unlessBlank(bytes().optional()),
  })
  .transform((e) => ({
    dataDir: e.DATA_DIR,
    ...serviceListenFields(e),
    grpcPort: e.GRPC_PORT,
    /** Unset: events stay in the journal until a bus is configured (or the launcher hands one in). */
    amqpUrl: e.AMQP_URL,
    /** accounts' gRPC address: every push and UpdateRef reads the repository's protection rules there. */
    accountsGrpcAddress: e.ACCOUNTS_GRPC_ADDR,
    eventsExchange: e.GITHOST_EVENTS_EXCHANGE,
    /** How long a ref change waits for each ref watcher's ack before cutting that watcher off (default 1000). */
    refsWatchAckTimeoutMs: e.REFS_WATCH_ACK_TIMEOUT_MS,
    /** How often each ref watcher hears a heartbeat (default 1000); watchers go stale after a few missed ones. */
    refsWatchHeartbeatMs: e.REFS_WATCH_HEARTBEAT_MS,
    /** Largest push (pack) accepted, in bytes: git's `receive.maxInputSize` (default 2 GiB). */
    pushMaxBytes: e.PUSH_MAX_BYTES,
    /** Largest file (blob) a push may bring, in bytes (default 100 MiB, as GitHub). */
    pushMaxFileBytes: e.PUSH_MAX_FILE_BYTES,
    /** Largest a repository's objects may grow on disk through pushes, in bytes; unset: no quota. */
    repositoryQuotaBytes: e.REPOSITORY_QUOTA_BYTES,
    /** A push whose request body sends nothing for this long is cut off (default 60 s). */
    pushIdleTimeoutMs: e.PUSH_IDLE_TIMEOUT_MS,
    /** Largest Git LFS object accepted, in bytes (default 5 GiB). */
    lfsMaxObjectBytes: e.LFS_MAX_OBJECT_BYTES,
    /** Where clients reach githost (the gateway): LFS batch answers point their actions there. */
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    /** This shard's own public base URL for LFS object transfers; unset: object actions point at
     *  the gateway (PUBLIC_URL), and no direct listener runs (docs/decisions/lfs.md#direct-transfers). */
    lfsDirectUrl: e.LFS_DIRECT_URL?.replace(/\/+$/, ''),
    /** The direct listener's port (default 3104), only when LFS_DIRECT_URL is set; 0 picks a free one. */
    lfsDirectPort: e.LFS_DIRECT_PORT,
    /** The interface the direct listener binds; default BIND_HOST. It is the one listener meant to
     *  be reachable from clients, so it may bind where the internal ones do not. */
    lfsDirectBindHost: e.LFS_DIRECT_BIND_HOST ?? e.BIND_HOST,
    /** A compare listing more commits than this on either side is refused as too big (docs/decisions/compare.md#budget). */
    compareMaxWalkCommits: e.COMPARE_MAX_WALK_COMMITS,
    /** A compare whose walks take longer than this is refused as too big; below browse's 30 s deadline. */
    compareTimeoutMs: e.COMPARE_TIMEOUT_MS,
    /** Repository housekeeping after ref updates (docs/decisions/housekeeping.md). */
    housekeeping: {
      delayMs: e.HOUSEKEEPING_DELAY_MS,
      concurrency: e.HOUSEKEEPING_CONCURRENCY,
      looseObjectsLimit: e.HOUSEKEEPING_LOOSE_OBJECTS,
      looseRefsLimit: e.HOUSEKEEPING_LOOSE_REFS,
      packsLimit: e.HOUSEKEEPING_MAX_PACKS,
      /** Unset: half the container's memory limit, unbounded without one (memory-budget.ts). */
      memoryBytes: e.HOUSEKEEPING_MEMORY_BYTES,
    },
  }));

/** A byte count: a whole number of at least 1, within what a double holds exactly. */
function bytes() {
  return z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
}

export type Config = z.output<typeof schema>;

/** git-storage configuration from the environment; a bad value stops the process at boot. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('git-storage', schema, environment);
}
