import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const SECRET = 'a-secret-of-enough-length';
const ACCOUNTS = '127.0.0.1:3002';

describe('loadConfig', () => {
  it('when only the secret and the accounts address are set, then the documented defaults apply', () => {
    expect(loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET })).toEqual({
      dataDir: './data',
      httpPort: 3101,
      metricsPort: 9464,
      grpcPort: 3102,
      bindHost: '0.0.0.0',
      internalSecret: SECRET,
      accountsGrpcAddress: ACCOUNTS,
      amqpUrl: undefined,
      eventsExchange: 'githost.events',
      pushMaxBytes: 2147483648,
      pushMaxFileBytes: 104857600,
      repositoryQuotaBytes: undefined,
      pushIdleTimeoutMs: 60000,
      lfsMaxObjectBytes: 5 * 1024 ** 3,
      publicUrl: 'http://localhost:3000',
      lfsDirectUrl: undefined,
      lfsDirectPort: 3104,
      lfsDirectBindHost: '0.0.0.0',
      compareMaxWalkCommits: 1_000_000,
      compareTimeoutMs: 20_000,
      housekeeping: { delayMs: 2000, concurrency: 1, looseObjectsLimit: 1024, looseRefsLimit: 64, packsLimit: 16, memoryBytes: undefined },
    });
  });

  it('when LFS_DIRECT_URL is set, then the direct listener takes it without its trailing slash, on its own port and interface; a URL that is not http(s) stops start-up', () => {
    const base = { ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, BIND_HOST: '127.0.0.1' };
    const c = loadConfig({ ...base, LFS_DIRECT_URL: 'https://lfs-a.example.com/shard-a/', LFS_DIRECT_PORT: '8443', LFS_DIRECT_BIND_HOST: '0.0.0.0' });
    expect([c.lfsDirectUrl, c.lfsDirectPort, c.lfsDirectBindHost, c.bindHost]).toEqual(['https://lfs-a.example.com/shard-a', 8443, '0.0.0.0', '127.0.0.1']);
    expect(loadConfig({ ...base, LFS_DIRECT_URL: '' }).lfsDirectUrl).toBeUndefined();
    expect(() => loadConfig({ ...base, LFS_DIRECT_URL: 'ftp://lfs.example.com' })).toThrow(/LFS_DIRECT_URL/);
  });

  it('when HOUSEKEEPING_MEMORY_BYTES is set, then housekeeping takes it as its budget; blank leaves the default', () => {
    const base = { ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET };
    expect(loadConfig({ ...base, HOUSEKEEPING_MEMORY_BYTES: '536870912' }).housekeeping.memoryBytes).toBe(512 * 1024 ** 2);
    expect(loadConfig({ ...base, HOUSEKEEPING_MEMORY_BYTES: '' }).housekeeping.memoryBytes).toBeUndefined();
    expect(() => loadConfig({ ...base, HOUSEKEEPING_MEMORY_BYTES: '0' })).toThrow(/HOUSEKEEPING_MEMORY_BYTES/);
  });

  it('when a value is bad, then start-up stops with a message naming it', () => {
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: 'short' })).toThrow(/GITHOST_INTERNAL_SECRET/);
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: SECRET })).toThrow(/ACCOUNTS_GRPC_ADDR/);
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: SECRET, ACCOUNTS_GRPC_ADDR: 'accounts' })).toThrow(/ACCOUNTS_GRPC_ADDR/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, GRPC_PORT: '70000' })).toThrow(/GRPC_PORT/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, HTTP_PORT: 'abc' })).toThrow(/HTTP_PORT/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, PUSH_MAX_BYTES: '2G' })).toThrow(/PUSH_MAX_BYTES/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, PUSH_MAX_FILE_BYTES: '0' })).toThrow(/PUSH_MAX_FILE_BYTES/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, REPOSITORY_QUOTA_BYTES: '-1' })).toThrow(/REPOSITORY_QUOTA_BYTES/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, PUSH_IDLE_TIMEOUT_MS: '1.5' })).toThrow(/PUSH_IDLE_TIMEOUT_MS/);
    expect(() => loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, HOUSEKEEPING_CONCURRENCY: '0' })).toThrow(/HOUSEKEEPING_CONCURRENCY/);
  });

  it('when AMQP_URL is empty, then it counts as unset', () => {
    expect(loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, AMQP_URL: '' }).amqpUrl).toBeUndefined();
  });

  it('when a repository quota is given, then it is read in bytes; empty counts as unset', () => {
    expect(loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, REPOSITORY_QUOTA_BYTES: '1073741824' }).repositoryQuotaBytes).toBe(1073741824);
    expect(loadConfig({ ACCOUNTS_GRPC_ADDR: ACCOUNTS, GITHOST_INTERNAL_SECRET: SECRET, REPOSITORY_QUOTA_BYTES: '' }).repositoryQuotaBytes).toBeUndefined();
  });
});
