import path from 'node:path';
import { env, loadConfig as load, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards, shardNameEnv, type ShardMap } from '@githost/storage-router';

const optional = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const fields = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: optional.pipe(z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL').optional()),
    HTTP_PORT: env.port(3201),
    GRPC_PORT: env.port(3202),
    BIND_HOST: env.bindHost(),
    GITHOST_INTERNAL_SECRET: env.internalSecret(),
    // A short bootstrap token would be guessable; it grants site admin.
    GITHOST_ADMIN_TOKEN: optional.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
    ...grpcShardEnv,
    GIT_STORAGE_DEFAULT_SHARD: shardNameEnv(),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
  });

const schema = requireGrpcShards(fields)
  .refine((e) => !e.GIT_STORAGE_DEFAULT_SHARD || grpcShardsOf(e).has(e.GIT_STORAGE_DEFAULT_SHARD), {
    path: ['GIT_STORAGE_DEFAULT_SHARD'],
    message: 'names no shard of GIT_STORAGE_SHARDS',
  })
  .transform((e) => ({
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    httpPort: e.HTTP_PORT,
    grpcPort: e.GRPC_PORT,
    bindHost: e.BIND_HOST,
    internalSecret: e.GITHOST_INTERNAL_SECRET,
    adminToken: e.GITHOST_ADMIN_TOKEN,
    storageShards: grpcShardsOf(e),
    defaultShard: e.GIT_STORAGE_DEFAULT_SHARD,
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
  }));

export interface Config {
  /** PGlite lives under `<dataDir>/db/accounts` when no databaseUrl is given. */
  dataDir: string;
  databaseUrl: string | undefined;
  httpPort: number;
  grpcPort: number;
  /** Interface both ports listen on. */
  bindHost: string;
  internalSecret: string;
  adminToken: string | undefined;
  /** git-storage shards, name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
  storageShards: ShardMap;
  /** GIT_STORAGE_DEFAULT_SHARD: where new repositories go; unset, the shard with the fewest. */
  defaultShard: string | undefined;
  /** Base of clone URLs, without a trailing slash. */
  publicUrl: string;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('accounts', schema, environment);
}

export function pgliteDir(config: Config): string {
  return path.join(config.dataDir, 'db', 'accounts');
}
