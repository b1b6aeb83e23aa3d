/*
 * git-storage shards (docs/operating.md#adding-a-shard). Operators list shards as `name=address,...`:
 * - GIT_STORAGE_SHARDS (gRPC `host:port`; accounts, browse, merge-requests), falling back to
 *   GIT_STORAGE_GRPC_ADDR as the one shard `default`;
 * - GIT_STORAGE_HTTP_SHARDS (smart HTTP URLs; gateway), falling back to GIT_STORAGE_HTTP_URL;
 * - GIT_STORAGE_DEFAULT_SHARD (accounts): where new repositories go; unset: the fewest-filled shard.
 * A repository's shard is in its record (identity.repo.shard); route every call with
 * `router.client(shard)`.
 */
export { DEFAULT_SHARD, SHARD_NAME, ShardListError, parseShardList, singleShard, type ShardKind, type ShardMap } from './shard-map.js';
export { grpcShardEnv, grpcShardsOf, httpShardsOf, requireGrpcShards, shardListEnv, shardNameEnv } from './config-env.js';
export { createStorageRouter, type StorageRouter, type StorageRouterOptions } from './router.js';
