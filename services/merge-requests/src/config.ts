import { databaseEnv, databaseFields, env, eventBusEnv, eventBusFields, loadConfig as load, serviceListenEnv, serviceListenFields, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, requireGrpcShards } from '@githost/storage-router';

/** 64 MiB: the detail diffs of about sixty 10,000-file merge requests (about 1 MB each). */
export const MR_DIFF_CACHE_BYTES = 64 * 1024 * 1024;

const schema = requireGrpcShards(
  z.object({
    ...databaseEnv(),
    ...serviceListenEnv(3401),
    ...grpcShardEnv,
    ACCOUNTS_GRPC_ADDR: env.address(),
    ...eventBusEnv(),
    GITHOST_MERGE_REQUESTS_QUEUE: env.name('githost.merge-requests'),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
    GITHOST_HANDLED_EVENTS_RETENTION_DAYS: env.int(7, 1),
    GITHOST_MR_DIFF_CACHE_BYTES: env.int(MR_DIFF_CACHE_BYTES, 0),
  }),
).transform((e) => ({
  ...databaseFields(e),
  ...serviceListenFields(e),
  /** git-storage shards, name -> `host:port` (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`). */
  gitStorageShards: grpcShardsOf(e),
  accountsAddr: e.ACCOUNTS_GRPC_ADDR,
  ...eventBusFields(e),
  /** Durable queue of the push / repository_deleted events this service follows. */
  eventsQueue: e.GITHOST_MERGE_REQUESTS_QUEUE,
  /** Base of the Link header of paged lists (docs/decisions/list-paging.md). */
  publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
  /** How long a handled event's id is kept to recognise a redelivery (docs/decisions/list-paging.md#retention). */
  handledEventsRetentionDays: e.GITHOST_HANDLED_EVENTS_RETENTION_DAYS,
  /** Bytes of merge request diffs kept by (base, head) (docs/decisions/merge-request-page-diff.md#cache); 0: none. */
  diffCacheBytes: e.GITHOST_MR_DIFF_CACHE_BYTES,
}));

export type Config = z.output<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('merge-requests', schema, environment);
}
