import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@githost/config/errors';
import { loadConfig } from './config.js';

const required = { GITHOST_INTERNAL_SECRET: 'a-secret-of-sixteen-or-more', ACCOUNTS_GRPC_ADDR: '127.0.0.1:50052' };

describe('loadConfig (the SSH service, without a schema library)', () => {
  it('when only the required variables are set, then every default the documentation names', () => {
    expect(loadConfig(required)).toEqual({
      httpPort: 3701,
      metricsPort: 9464,
      bindHost: '0.0.0.0',
      internalSecret: 'a-secret-of-sixteen-or-more',
      dataDir: './data',
      hostKeyDir: 'data/ssh',
      sshPort: 2222,
      sshBindHost: '0.0.0.0',
      limits: { unauthenticatedPerAddress: 30, sessionsPerKey: 20, loginGraceMs: 30_000, idleMs: 600_000, authAttempts: 6 },
      accountsGrpcAddress: '127.0.0.1:50052',
      gitStorageShards: new Map(),
      publicUrl: 'http://localhost:3000',
      gitPerMinute: 1200,
      rateLimitStore: { url: undefined, prefix: 'githost:rl:' },
    });
  });

  it('when values are set (blank ones read as unset), then they are used', () => {
    const config = loadConfig({
      ...required,
      SSH_PORT: '0',
      HTTP_PORT: ' ',
      DATA_DIR: '/srv/githost',
      GIT_STORAGE_HTTP_URL: 'http://127.0.0.1:3003/',
      PUBLIC_URL: 'https://git.example.com/',
      GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '0',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SSH_IDLE_TIMEOUT_MS: '1000',
    });
    expect([config.sshPort, config.httpPort, config.hostKeyDir, [...config.gitStorageShards], config.publicUrl, config.gitPerMinute, config.rateLimitStore.url, config.limits.idleMs]).toEqual([
      0,
      3701,
      '/srv/githost/ssh',
      [['default', 'http://127.0.0.1:3003']],
      'https://git.example.com',
      0,
      'redis://127.0.0.1:6379',
      1000,
    ]);
    expect([...loadConfig({ ...required, GIT_STORAGE_HTTP_SHARDS: 'default=http://a:1,eu=http://b:2' }).gitStorageShards]).toEqual([
      ['default', 'http://a:1'],
      ['eu', 'http://b:2'],
    ]);
  });

  it('when variables are missing or wrong, then one ConfigError names every one of them', () => {
    const bad = () => loadConfig({ GITHOST_INTERNAL_SECRET: 'short', SSH_PORT: '70000', SSH_MAX_SESSIONS_PER_KEY: '0', PUBLIC_URL: 'not a url', REDIS_URL: 'http://x', GIT_STORAGE_HTTP_SHARDS: 'Bad Name=x' });
    expect(bad).toThrow(ConfigError);
    const message = (() => {
      try {
        bad();
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message.split('\n').map((line) => line.split(':')[0]!.trim())).toEqual([
      'ssh',
      'GIT_STORAGE_HTTP_SHARDS',
      'GITHOST_INTERNAL_SECRET',
      'SSH_PORT',
      'SSH_MAX_SESSIONS_PER_KEY',
      'ACCOUNTS_GRPC_ADDR',
      'PUBLIC_URL',
      'REDIS_URL',
    ]);
    expect(message).toContain('  GITHOST_INTERNAL_SECRET: must be at least 16 characters');
    expect(message).toContain('  ACCOUNTS_GRPC_ADDR: required');
  });
});
