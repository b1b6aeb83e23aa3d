import path from 'node:path';
import { env, loadConfig as load, rateLimitStoreEnv, rateLimitStoreFields, serviceListenEnv, serviceListenFields, z } from '@githost/config';
import { httpShardsOf, shardListEnv } from '@githost/storage-router';

const optionalUrl = () => env.optional(z.string().url());

const schema = z
  .object({
    // The internal HTTP port (health, metrics, GET /host-keys), as every service has one.
    ...serviceListenEnv(3701),
    DATA_DIR: env.dataDir(),
    SSH_PORT: env.port(2222),
    // The SSH listener is public, unlike the internal ports: all interfaces unless told otherwise.
    SSH_BIND_HOST: env.bindHost(),
    SSH_MAX_UNAUTHENTICATED_PER_ADDRESS: env.int(30, 1),
    SSH_MAX_SESSIONS_PER_KEY: env.int(20, 1),
    SSH_LOGIN_GRACE_MS: env.int(30_000, 1),
    SSH_IDLE_TIMEOUT_MS: env.int(600_000, 1),
    // Where the host keys are; a read-only Secret mount on Kubernetes, shared by every replica.
    SSH_HOST_KEY_DIR: env.optional(z.string().min(1)),
    ACCOUNTS_GRPC_ADDR: env.address(),
    GIT_STORAGE_HTTP_URL: optionalUrl(),
    GIT_STORAGE_HTTP_SHARDS: shardListEnv('http'),
    PUBLIC_URL: z.string().url().default('http://localhost:3000'),
    GITHOST_GIT_RATE_LIMIT_PER_MINUTE: env.int(1200),
    ...rateLimitStoreEnv(),
  })
  .transform((e) => ({
    ...serviceListenFields(e),
    dataDir: e.DATA_DIR,
    hostKeyDir: e.SSH_HOST_KEY_DIR ?? path.join(e.DATA_DIR, 'ssh'),
    sshPort: e.SSH_PORT,
    sshBindHost: e.SSH_BIND_HOST,
    limits: {
      /** Connections not yet authenticated from one address at once. */
      unauthenticatedPerAddress: e.SSH_MAX_UNAUTHENTICATED_PER_ADDRESS,
      /** Sessions (git commands) running at once under one key. */
      sessionsPerKey: e.SSH_MAX_SESSIONS_PER_KEY,
      /** Time from connecting to authenticating (OpenSSH's LoginGraceTime is 120 s). */
      loginGraceMs: e.SSH_LOGIN_GRACE_MS,
      /** Time an authenticated connection may spend with no command running (docs/decisions/ssh-server.md#limits). */
      idleMs: e.SSH_IDLE_TIMEOUT_MS,
      /** Authentication attempts per connection (OpenSSH's MaxAuthTries). */
      authAttempts: 6,
    },
    accountsGrpcAddress: e.ACCOUNTS_GRPC_ADDR,
    gitStorageShards: httpShardsOf(e),
    /** Where clients reach the gateway: git-lfs-authenticate's href. */
    publicUrl: e.PUBLIC_URL.replace(/\/+$/, ''),
    /** git requests per minute per user (or deploy key), as the gateway's per-token git budget; 0: no limit. */
    gitPerMinute: e.GITHOST_GIT_RATE_LIMIT_PER_MINUTE,
    /** Where the git budget is counted: the gateway's Redis (REDIS_URL, GITHOST_RATE_LIMIT_PREFIX), or this process. */
    ...rateLimitStoreFields(e),
  }));

export type Config = z.output<typeof schema>;

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  return load('ssh', schema, environment);
}
