import path from 'node:path';
import { ConfigError } from '@githost/config/errors';
import { parseShardList, singleShard, type ShardMap } from '@githost/storage-router/shard-map';
import { EnvReader } from './env-reader.js';

/**
 * The SSH service's configuration, read from the environment as every service reads its own (the
 * same variables, defaults and checks as @githost/config's shapes; a bad value stops the start with
 * one message naming every variable) but without the schema library, which costs this small
 * process 4 MiB of its 60 (docs/decisions/ssh-server.md#memory).
 */
export interface Config {
  /** The internal HTTP port (health, GET /host-keys), as every service has one. */
  httpPort: number;
  metricsPort: number;
  bindHost: string;
  internalSecret: string;
  dataDir: string;
  hostKeyDir: string;
  sshPort: number;
  /** The SSH listener is public, unlike the internal ports: all interfaces unless told otherwise. */
  sshBindHost: string;
  limits: {
    /** Connections not yet authenticated from one address at once. */
    unauthenticatedPerAddress: number;
    /** Sessions (git commands) running at once under one key. */
    sessionsPerKey: number;
    /** Time from connecting to authenticating (OpenSSH's LoginGraceTime is 120 s). */
    loginGraceMs: number;
    /** Time an authenticated connection may spend with no command running (docs/decisions/ssh-server.md#limits). */
    idleMs: number;
    /** Authentication attempts per connection (OpenSSH's MaxAuthTries). */
    authAttempts: number;
  };
  accountsGrpcAddress: string;
  gitStorageShards: ShardMap;
  /** Where clients reach the gateway: git-lfs-authenticate's href. */
  publicUrl: string;
  /** git requests per minute per user (or deploy key), as the gateway's per-token git budget; 0: no limit. */
  gitPerMinute: number;
  /** Where the git budget is counted: the gateway's Redis (REDIS_URL, GITHOST_RATE_LIMIT_PREFIX), or this process. */
  rateLimitStore: { url: string | undefined; prefix: string };
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const e = new EnvReader(environment);
  const dataDir = e.string('DATA_DIR', './data');
  const httpShards = e.optional('GIT_STORAGE_HTTP_SHARDS', (v) => parseShardList(v, 'http'));
  const httpUrl = e.optionalUrl('GIT_STORAGE_HTTP_URL');
  const config: Config = {
    httpPort: e.port('HTTP_PORT', 3701),
    metricsPort: e.port('METRICS_PORT', 9464),
    bindHost: e.bindHost('BIND_HOST'),
    internalSecret: e.required('GITHOST_INTERNAL_SECRET', (v) => (v.length >= 16 ? v : e.problem('must be at least 16 characters'))),
    dataDir,
    hostKeyDir: e.optional('SSH_HOST_KEY_DIR', (v) => v) ?? path.join(dataDir, 'ssh'),
    sshPort: e.port('SSH_PORT', 2222),
    sshBindHost: e.bindHost('SSH_BIND_HOST'),
    limits: {
      unauthenticatedPerAddress: e.int('SSH_MAX_UNAUTHENTICATED_PER_ADDRESS', 30, 1),
      sessionsPerKey: e.int('SSH_MAX_SESSIONS_PER_KEY', 20, 1),
      loginGraceMs: e.int('SSH_LOGIN_GRACE_MS', 30_000, 1),
      idleMs: e.int('SSH_IDLE_TIMEOUT_MS', 600_000, 1),
      authAttempts: 6,
    },
    accountsGrpcAddress: e.required('ACCOUNTS_GRPC_ADDR', (v) => (/^[^\s:]+:\d+$/.test(v) ? v : e.problem('expected host:port'))),
    gitStorageShards: httpShards ?? (httpUrl ? singleShard(httpUrl.replace(/\/+$/, '')) : new Map()),
    publicUrl: (e.optionalUrl('PUBLIC_URL') ?? 'http://localhost:3000').replace(/\/+$/, ''),
    gitPerMinute: e.int('GITHOST_GIT_RATE_LIMIT_PER_MINUTE', 1200, 0),
    rateLimitStore: {
      url: e.optional('REDIS_URL', (v) => (/^rediss?:\/\/\S+$/.test(v) ? v : e.problem('expected a redis:// or rediss:// URL'))),
      prefix: e.optional('GITHOST_RATE_LIMIT_PREFIX', (v) => (/^[\w:.-]{1,64}$/.test(v) ? v : e.problem('expected up to 64 letters, digits, _ : . -'))) ?? 'githost:rl:',
    },
  };
  const problems = e.problems();
  if (problems.length > 0) throw new ConfigError(`ssh: invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return config;
}
