import { env, loadConfig as load, z } from '@githost/config';
import { httpShardsOf, shardListEnv, type ShardMap } from '@githost/storage-router';

const optionalUrl = env.optionalUrl;

const schema = z
  .object({
    PORT: env.port(3000),
    GITHOST_INTERNAL_SECRET: env.internalSecret(),
    ACCOUNTS_GRPC_ADDR: env.address(),
    ACCOUNTS_HTTP_URL: optionalUrl(),
    GIT_STORAGE_HTTP_URL: optionalUrl(),
    GIT_STORAGE_HTTP_SHARDS: shardListEnv('http'),
    BROWSE_URL: optionalUrl(),
    MERGE_REQUESTS_URL: optionalUrl(),
    WEBHOOKS_URL: optionalUrl(),
  })
  .transform((e) => ({
    port: e.PORT,
    internalSecret: e.GITHOST_INTERNAL_SECRET,
    accountsGrpcAddress: e.ACCOUNTS_GRPC_ADDR,
    upstreams: {
      accounts: e.ACCOUNTS_HTTP_URL,
      // The first shard: any git-storage at all means git transport is served.
      'git-storage': httpShardsOf(e).values().next().value,
      browse: e.BROWSE_URL,
      'merge-requests': e.MERGE_REQUESTS_URL,
      webhooks: e.WEBHOOKS_URL,
    },
    gitStorageShards: httpShardsOf(e),
  }));

export type UpstreamName = 'accounts' | 'git-storage' | 'browse' | 'merge-requests' | 'webhooks';

export interface Config {
  port: number;
  internalSecret: string;
  /** `host:port` of the accounts gRPC server (Authenticate, Authorize). */
  accountsGrpcAddress: string;
  /** Base URL of each service's HTTP server; an absent one answers 503, so the edge still runs
   *  while a service is down or not deployed. */
  upstreams: Record<UpstreamName, string | undefined>;
  /** git-storage smart-HTTP base URL by shard (GIT_STORAGE_HTTP_SHARDS, or GIT_STORAGE_HTTP_URL as
   *  `default`); git transport goes to the shard of the repository. Absent: upstreams['git-storage']. */
  gitStorageShards?: ShardMap;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('gateway', schema, environment);
}
