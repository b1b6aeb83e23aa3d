import { env, z } from '@githost/config';
import { parseShardList, SHARD_NAME, singleShard, type ShardKind, type ShardMap } from './shard-map.js';

/**
 * zod fields for a service's config schema, so every service reads the shard variables the same
 * way: spread `grpcShardEnv` into the object, pass it through `requireGrpcShards`, and build the
 * map with `grpcShardsOf` in the transform.
 */
const optionalString = env.optional(z.string().trim());

export function shardListEnv(kind: ShardKind) {
  return optionalString.transform((value, ctx): ShardMap | undefined => {
    if (value === undefined) return undefined;
    try {
      return parseShardList(value, kind);
    } catch (err) {
      ctx.issues.push({ code: 'custom', message: (err as Error).message, input: value });
      return z.NEVER;
    }
  });
}

export const shardNameEnv = () => optionalString.pipe(z.string().regex(SHARD_NAME, 'expected a shard name').optional());

export const grpcShardEnv = {
  GIT_STORAGE_SHARDS: shardListEnv('grpc'),
  // Still the whole configuration of a single-shard install (everything before shards).
  GIT_STORAGE_GRPC_ADDR: optionalString.pipe(env.address().optional()),
};

interface GrpcShardInput {
  GIT_STORAGE_SHARDS?: unknown;
  GIT_STORAGE_GRPC_ADDR?: unknown;
}

/** One of the two must be given; checked even when other variables are wrong, so the start-up
 *  message lists every problem at once. */
export function requireGrpcShards<T extends z.ZodType<GrpcShardInput>>(schema: T): T {
  return schema.refine((e) => Boolean(e?.GIT_STORAGE_SHARDS || e?.GIT_STORAGE_GRPC_ADDR), {
    path: ['GIT_STORAGE_GRPC_ADDR'],
    message: 'required (host:port) unless GIT_STORAGE_SHARDS is set',
    when: () => true,
  }) as T;
}

/** GIT_STORAGE_SHARDS when set, else GIT_STORAGE_GRPC_ADDR as the one shard `default`. */
export function grpcShardsOf(e: { GIT_STORAGE_SHARDS?: ShardMap; GIT_STORAGE_GRPC_ADDR?: string }): ShardMap {
  if (e.GIT_STORAGE_SHARDS) return e.GIT_STORAGE_SHARDS;
  if (e.GIT_STORAGE_GRPC_ADDR) return singleShard(e.GIT_STORAGE_GRPC_ADDR);
  throw new Error('GIT_STORAGE_GRPC_ADDR or GIT_STORAGE_SHARDS is required');
}

/** GIT_STORAGE_HTTP_SHARDS when set, else GIT_STORAGE_HTTP_URL as `default`, else none (the
 *  gateway then answers git transport with 503, as it did without a git-storage URL). */
export function httpShardsOf(e: { GIT_STORAGE_HTTP_SHARDS?: ShardMap; GIT_STORAGE_HTTP_URL?: string }): ShardMap {
  if (e.GIT_STORAGE_HTTP_SHARDS) return e.GIT_STORAGE_HTTP_SHARDS;
  return e.GIT_STORAGE_HTTP_URL ? singleShard(e.GIT_STORAGE_HTTP_URL.replace(/\/+$/, '')) : new Map();
}
