import { env, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards } from '@githost/storage-router';

const schema = requireGrpcShards(
  z.object({
    DATA_DIR: env.dataDir(),
    DATABASE_URL: env.databaseUrl(),
    ...serviceListenEnv(3401),
    ...grpcShardEnv,
    ACCOUNTS_GRPC_ADDR: env.address(),
    AMQP_URL: env.amqpUrl(),
    GITHOST_EVENTS_EXCHANGE: env.eventsExchange(),
    GITHOST_MERGE_REQUESTS_QUEUE: env.name('githost.merge-requests'),
  }),
).transform((e) => ({
  dataDir: e.DATA_DIR,
  /** postgres:// URL; unset means PGlite under `DATA_DIR/db/merge-requests`. */
  databaseUrl: e.DATABASE_URL,
  ...serviceListenFields(e),
  /** git-storage shards, name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
  gitStorageShards: grpcShardsOf(e),
  accountsAddr: e.ACCOUNTS_GRPC_ADDR,
  /** Unset means the in-process bus. */
  amqpUrl: e.AMQP_URL,
  eventsExchange: e.GITHOST_EVENTS_EXCHANGE,
  /** Durable queue of the push / repository_deleted events this service follows. */
  eventsQueue: e.GITHOST_MERGE_REQUESTS_QUEUE,
}));

export type Config = z.output<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('merge-requests', schema, environment);
}
