import { env, loadConfig as load, z } from '@githost/config';

const schema = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  HTTP_PORT: env.port(3101),
  GRPC_PORT: env.port(3102),
  BIND_HOST: env.bindHost(),
  GITHOST_INTERNAL_SECRET: env.internalSecret(),
  AMQP_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  /** accounts' gRPC address: every push and UpdateRef reads the repository's protection rules there. */
  ACCOUNTS_GRPC_ADDR: env.address(),
  GITHOST_EVENTS_EXCHANGE: z.string().min(1).default('githost.events'),
  /** How long a ref change waits for each ref watcher's ack before cutting that watcher off (default 1000). */
  REFS_WATCH_ACK_TIMEOUT_MS: z.coerce.number().int().min(1).optional(),
  /** How often each ref watcher hears a heartbeat (default 1000); watchers go stale after a few missed ones. */
  REFS_WATCH_HEARTBEAT_MS: z.coerce.number().int().min(1).optional(),
  /** Largest push (pack) accepted, in bytes: git's `receive.maxInputSize` (default 2 GiB). */
  PUSH_MAX_BYTES: bytes().default(2 * 1024 ** 3),
  /** Largest file (blob) a push may bring, in bytes (default 100 MiB, as GitHub). */
  PUSH_MAX_FILE_BYTES: bytes().default(100 * 1024 ** 2),
  /** Largest a repository's objects may grow on disk through pushes, in bytes; unset: no quota. */
  REPOSITORY_QUOTA_BYTES: z.preprocess((v) => (v === '' ? undefined : v), bytes().optional()),
  /** A push whose request body sends nothing for this long is cut off (default 60 s). */
  PUSH_IDLE_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
});

/** A byte count: a whole number of at least 1, within what a double holds exactly. */
function bytes() {
  return z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
}

export type Config = z.infer<typeof schema>;

/** git-storage configuration from the environment; a bad value stops the process at boot. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('git-storage', schema, environment);
}
