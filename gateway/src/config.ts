import { env, loadConfig as load, rateLimitStoreEnv, rateLimitStoreFields, z } from '@githost/config';
import { grpcShardEnv, grpcShardsOf, httpShardsOf, shardListEnv, type ShardMap } from '@githost/storage-router';
import { DEFAULT_BODY_TIMEOUT_MS } from './request-checks/body-timeout.js';
import { DEFAULT_EDGE_CACHE_BYTES } from './edge-cache/answers.js';
import { DEFAULT_EDGE_ENTRIES } from './edge-cache/validators.js';
import { DEFAULT_LFS_RATE_LIMIT_PER_MINUTE, type RateLimits } from './admission/rate-limit.js';

const optionalUrl = env.optionalUrl;

const schema = z
  .object({
    PORT: env.port(3000),
    METRICS_PORT: env.metricsPort(),
    BIND_HOST: env.bindHost(),
    GITHOST_INTERNAL_SECRET: env.internalSecret(),
    ACCOUNTS_GRPC_ADDR: env.address(),
    ACCOUNTS_HTTP_URL: optionalUrl(),
    GIT_STORAGE_HTTP_URL: optionalUrl(),
    GIT_STORAGE_HTTP_SHARDS: shardListEnv('http'),
    // Optional here: only the ref watch behind the edge's 304s needs git-storage's gRPC.
    ...grpcShardEnv,
    GITHOST_EDGE_CACHE_ENTRIES: env.int(DEFAULT_EDGE_ENTRIES),
    GITHOST_EDGE_CACHE_BYTES: env.int(DEFAULT_EDGE_CACHE_BYTES, 0),
    GITHOST_EDGE_KEEPS_PULLS: env.bool(true),
    BROWSE_URL: optionalUrl(),
    MERGE_REQUESTS_URL: optionalUrl(),
    WEBHOOKS_URL: optionalUrl(),
    WEB_URL: optionalUrl(),
    WEB_FALLBACK_URL: optionalUrl(),
    GITEA_API_URL: optionalUrl(),
    GITHOST_RATE_LIMIT_PER_MINUTE: env.int(600),
    GITHOST_RATE_LIMIT_ANON_PER_MINUTE: env.int(120),
    GITHOST_GIT_RATE_LIMIT_PER_MINUTE: env.int(1200),
    GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: env.int(600),
    GITHOST_LFS_RATE_LIMIT_PER_MINUTE: env.int(DEFAULT_LFS_RATE_LIMIT_PER_MINUTE),
    ...rateLimitStoreEnv(),
    GITHOST_TRUST_PROXY: z.string().default(''),
    GITHOST_BODY_TIMEOUT_MS: env.int(DEFAULT_BODY_TIMEOUT_MS, 1),
  })
  .transform((e) => {
    const gitStorageShards = httpShardsOf(e);
    return {
      port: e.PORT,
      metricsPort: e.METRICS_PORT,
      bindHost: e.BIND_HOST,
      internalSecret: e.GITHOST_INTERNAL_SECRET,
      accountsGrpcAddress: e.ACCOUNTS_GRPC_ADDR,
      upstreams: {
        accounts: e.ACCOUNTS_HTTP_URL,
        // The first shard: any git-storage at all means git transport is served.
        'git-storage': gitStorageShards.values().next().value,
        browse: e.BROWSE_URL,
        'merge-requests': e.MERGE_REQUESTS_URL,
        webhooks: e.WEBHOOKS_URL,
        web: e.WEB_URL,
        'gitea-api': e.GITEA_API_URL,
      },
      fallbacks: { web: e.WEB_FALLBACK_URL },
      gitStorageShards,
      gitStorageGrpcShards: e.GIT_STORAGE_SHARDS || e.GIT_STORAGE_GRPC_ADDR ? grpcShardsOf(e) : undefined,
      edgeCacheEntries: e.GITHOST_EDGE_CACHE_ENTRIES,
      edgeCacheBytes: e.GITHOST_EDGE_CACHE_BYTES,
      edgeKeepsPulls: e.GITHOST_EDGE_KEEPS_PULLS,
      rateLimits: {
        perTokenPerMinute: e.GITHOST_RATE_LIMIT_PER_MINUTE,
        anonymousPerMinute: e.GITHOST_RATE_LIMIT_ANON_PER_MINUTE,
        git: { perTokenPerMinute: e.GITHOST_GIT_RATE_LIMIT_PER_MINUTE, perAddressPerMinute: e.GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE },
        lfs: { perUserPerMinute: e.GITHOST_LFS_RATE_LIMIT_PER_MINUTE },
      },
      ...rateLimitStoreFields(e),
      trustProxy: trustProxyOf(e.GITHOST_TRUST_PROXY),
      bodyTimeoutMs: e.GITHOST_BODY_TIMEOUT_MS,
    };
  });

/** express's `trust proxy`: empty or `false` trusts no one (the socket address is the client),
 *  a number trusts that many hops, anything else is a list of proxy addresses or subnets. */
function trustProxyOf(value: string): boolean | number | string {
  const v = value.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

export type UpstreamName = 'accounts' | 'git-storage' | 'browse' | 'merge-requests' | 'webhooks' | 'web' | 'gitea-api';

export interface Config {
  port: number;
  /** Prometheus `GET /metrics` (METRICS_PORT): never the public port (CONTRACT §8). */
  metricsPort: number;
  /** Interface both listeners bind (BIND_HOST, default 0.0.0.0), as every service's do; the
   *  launcher sets 127.0.0.1, which reaches the metrics listener (it hands the public port over bound). */
  bindHost?: string;
  internalSecret: string;
  /** `host:port` of the accounts gRPC server (Authenticate, Authorize). */
  accountsGrpcAddress: string;
  /** Base URL of each service's HTTP server; an absent one answers 503, so the edge still runs
   *  while a service is down or not deployed. */
  upstreams: Record<Exclude<UpstreamName, 'web' | 'gitea-api'>, string | undefined> & {
    /** The site's pages (WEB_URL, services/web/README.md#one-path-for-access-control); absent: every page path answers 503. */
    web?: string | undefined;
    /** Gitea's API under /api/v1 (GITEA_API_URL, docs/decisions/gitea-api.md); absent: those paths answer 503. */
    'gitea-api'?: string | undefined;
  };
  /** Where an upstream's request goes when its own address did not take it (WEB_FALLBACK_URL: the
   *  launcher's replicas pair gateway N with web N and fall back to haproxy's web section,
   *  docs/decisions/replicas.md#the-web-paired-with-its-gateway); see forwarding/proxy.ts. */
  fallbacks?: Partial<Record<UpstreamName, string | undefined>>;
  /** git-storage smart-HTTP base URL by shard (GIT_STORAGE_HTTP_SHARDS, or GIT_STORAGE_HTTP_URL as
   *  `default`); git transport goes to the shard of the repository. Absent: upstreams['git-storage']. */
  gitStorageShards?: ShardMap;
  /** git-storage gRPC address by shard (GIT_STORAGE_SHARDS, or GIT_STORAGE_GRPC_ADDR as `default`):
   *  the ref watch the edge's 304s rely on. Absent: no watch, every browse request is forwarded. */
  gitStorageGrpcShards?: ShardMap;
  /** Browse validators kept at the edge (GITHOST_EDGE_CACHE_ENTRIES, default 10,000; 0: none). */
  edgeCacheEntries?: number;
  /** Whole browse answers kept at the edge, in bytes (GITHOST_EDGE_CACHE_BYTES, default 32 MiB; 0: none). */
  edgeCacheBytes?: number;
  /** Whether the edge keeps the Gitea pull request list by the repository's facts version
   *  (GITHOST_EDGE_KEEPS_PULLS, default true; docs/decisions/pulls-at-the-edge.md). */
  edgeKeepsPulls?: boolean;
  /** Per-minute budgets: REST API (GITHOST_RATE_LIMIT_PER_MINUTE, GITHOST_RATE_LIMIT_ANON_PER_MINUTE)
   *  and git transport (GITHOST_GIT_RATE_LIMIT_PER_MINUTE, GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE),
   *  LFS object transfers (GITHOST_LFS_RATE_LIMIT_PER_MINUTE); absent: no limits. */
  rateLimits?: RateLimits;
  /** Where the budgets are counted (docs/decisions/shared-rate-limits.md): Redis (REDIS_URL), shared by
   *  every replica and the SSH service, keys starting with `prefix` (GITHOST_RATE_LIMIT_PREFIX);
   *  absent or without a URL, in this process. */
  rateLimitStore?: { url?: string | undefined; prefix?: string };
  /** Which proxies in front may name the client address in X-Forwarded-For (GITHOST_TRUST_PROXY):
   *  behind an ingress, anonymous clients would otherwise all share the ingress's budget. */
  trustProxy?: boolean | number | string;
  /** How long a request body may go without a byte before 408 (GITHOST_BODY_TIMEOUT_MS, default 30 s). */
  bodyTimeoutMs?: number;
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('gateway', schema, environment);
}
