import { env, loadConfig as load, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards, type ShardMap } from '@githost/storage-router';

const fields = z.object({
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  HTTP_PORT: env.port(3401),
  BIND_HOST: env.bindHost(),
  GITHOST_INTERNAL_SECRET: env.internalSecret(),
  ...grpcShardEnv,
  ACCOUNTS_GRPC_ADDR: env.address(),
  AMQP_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  GITHOST_EVENTS_EXCHANGE: z.string().min(1).default('githost.events'),
  GITHOST_MERGE_REQUESTS_QUEUE: z.string().min(1).default('githost.merge-requests'),
});

const schema = requireGrpcShards(fields);

export interface Config {
  dataDir: string;
  /** postgres:// URL; unset means PGlite under `DATA_DIR/db/merge-requests`. */
  databaseUrl: string | undefined;
  httpPort: number;
  bindHost: string;
  internalSecret: string;
  /** git-storage shards, name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
  gitStorageShards: ShardMap;
  accountsAddr: string;
  /** unset means the in-process bus. */
  amqpUrl: string | undefined;
  eventsExchange: string;
  /** Durable queue of the push / repository_deleted events this service follows. */
  eventsQueue: string;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const c = load('merge-requests', schema, environment);
  return {
    dataDir: c.DATA_DIR,
    databaseUrl: c.DATABASE_URL,
    httpPort: c.HTTP_PORT,
    bindHost: c.BIND_HOST,
    internalSecret: c.GITHOST_INTERNAL_SECRET,
    gitStorageShards: grpcShardsOf(c),
    accountsAddr: c.ACCOUNTS_GRPC_ADDR,
    amqpUrl: c.AMQP_URL,
    eventsExchange: c.GITHOST_EVENTS_EXCHANGE,
    eventsQueue: c.GITHOST_MERGE_REQUESTS_QUEUE,
  };
}
