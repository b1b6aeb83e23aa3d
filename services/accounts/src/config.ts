import path from 'node:path';
import { databaseEnv, databaseFields, env, eventBusEnv, eventBusFields, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards, shardNameEnv } from '@githost/storage-router';

const fields = z
  .object({
    ...databaseEnv(),
    ...serviceListenEnv(3201),
    GRPC_PORT: env.port(3202),
    // A short bootstrap token would be guessable; it grants site admin.
    GITHOST_ADMIN_TOKEN: env.optional(z.string().min(16, 'must be at least 16 characters')),
    ...grpcShardEnv,
    GIT_STORAGE_DEFAULT_SHARD: shardNameEnv(),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
    ...eventBusEnv(),
    GITHOST_ACCOUNTS_QUEUE: env.name('githost.accounts'),
    // services/accounts/README.md#sessions.
    GITHOST_SESSION_IDLE_TIMEOUT_SECONDS: env.int(14 * 24 * 3600, 60),
    GITHOST_SESSION_MAX_AGE_SECONDS: env.int(30 * 24 * 3600, 60),
    GITHOST_SIGN_IN_FAILURES_PER_ACCOUNT: env.int(10),
    GITHOST_SIGN_IN_FAILURES_PER_ADDRESS: env.int(30),
    // Failures older than a day are swept (db/session-store.ts), so no window may be longer.
    GITHOST_SIGN_IN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(15 * 60),
  });

const schema = requireGrpcShards(fields)
  .refine((e) => !e.GIT_STORAGE_DEFAULT_SHARD || grpcShardsOf(e).has(e.GIT_STORAGE_DEFAULT_SHARD), {
    path: ['GIT_STORAGE_DEFAULT_SHARD'],
    message: 'names no shard of GIT_STORAGE_SHARDS',
  })
  .transform((e) => ({
    ...databaseFields(e),
    ...serviceListenFields(e),
    grpcPort: e.GRPC_PORT,
    adminToken: e.GITHOST_ADMIN_TOKEN,
    /** git-storage shards, name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
    storageShards: grpcShardsOf(e),
    /** GIT_STORAGE_DEFAULT_SHARD: where new repositories go; unset, the shard with the fewest. */
    defaultShard: e.GIT_STORAGE_DEFAULT_SHARD,
    /** Base of clone URLs, without a trailing slash. */
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    ...eventBusFields(e),
    /** Durable queue of the push events that order the Explore list. */
    eventsQueue: e.GITHOST_ACCOUNTS_QUEUE,
    /** Session expiry and sign-in failure limits (0 turns a limit off). */
    sessions: {
      idleTimeoutMs: e.GITHOST_SESSION_IDLE_TIMEOUT_SECONDS * 1000,
      maxAgeMs: e.GITHOST_SESSION_MAX_AGE_SECONDS * 1000,
      failuresPerAccount: e.GITHOST_SIGN_IN_FAILURES_PER_ACCOUNT,
      failuresPerAddress: e.GITHOST_SIGN_IN_FAILURES_PER_ADDRESS,
      failureWindowMs: e.GITHOST_SIGN_IN_FAILURE_WINDOW_SECONDS * 1000,
    },
  }));

export type Config = z.output<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('accounts', schema, environment);
}

export function pgliteDir(config: Config): string {
  return path.join(config.dataDir, 'db', 'accounts');
}
