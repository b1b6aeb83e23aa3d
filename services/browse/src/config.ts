import { env, loadConfig as load, z } from '@githost/config';

const schema = z
  .object({
    HTTP_PORT: env.port(3301),
    BIND_HOST: env.bindHost(),
    GITHOST_INTERNAL_SECRET: env.internalSecret(),
    GIT_STORAGE_GRPC_ADDR: env.address(),
    BROWSE_MAX_BLOB_BYTES: env.int(10 * 1024 * 1024, 1),
    BROWSE_CACHE_BYTES: env.int(64 * 1024 * 1024, 0),
  })
  .transform((e) => ({
    httpPort: e.HTTP_PORT,
    bindHost: e.BIND_HOST,
    internalSecret: e.GITHOST_INTERNAL_SECRET,
    storageAddress: e.GIT_STORAGE_GRPC_ADDR,
    maxBlobBytes: e.BROWSE_MAX_BLOB_BYTES,
    cacheBytes: e.BROWSE_CACHE_BYTES,
  }));

export type Config = z.infer<typeof schema>;

/** Validated at boot: a bad value stops the process with a message naming the variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('browse', schema, environment);
}
