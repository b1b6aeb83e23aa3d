import { env, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards } from '@githost/storage-router';

const schema = requireGrpcShards(
  z.object({
    ...serviceListenEnv(3301),
    ...grpcShardEnv,
    BROWSE_MAX_BLOB_BYTES: env.int(10 * 1024 * 1024, 1),
    BROWSE_CACHE_BYTES: env.int(64 * 1024 * 1024, 0),
  }),
)
  .transform((e) => ({
    ...serviceListenFields(e),
    /** name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
    storageShards: grpcShardsOf(e),
    maxBlobBytes: e.BROWSE_MAX_BLOB_BYTES,
    cacheBytes: e.BROWSE_CACHE_BYTES,
  }));

export type Config = z.infer<typeof schema>;

/** Validated at boot: a bad value stops the process with a message naming the variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('browse', schema, environment);
}
