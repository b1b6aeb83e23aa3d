import { describe, expect, it } from '@jest/globals';
import { loadConfig, pgliteDir } from './config.js';

const base = { GITHOST_INTERNAL_SECRET: 'a-secret-of-16-chars', GIT_STORAGE_GRPC_ADDR: 'storage:3102' };

describe('config', () => {
  it('when only the required variables are set, then the defaults apply', () => {
    const config = loadConfig(base);
    expect(config).toEqual({
      dataDir: './data',
      databaseUrl: undefined,
      httpPort: 3201,
      metricsPort: 9464,
      grpcPort: 3202,
      bindHost: '0.0.0.0',
      internalSecret: 'a-secret-of-16-chars',
      adminToken: undefined,
      storageShards: new Map([['default', 'storage:3102']]),
      defaultShard: undefined,
      publicUrl: 'http://localhost:3000',
      amqpUrl: undefined,
      eventsExchange: 'githost.events',
      eventsQueue: 'githost.accounts',
      sessions: { idleTimeoutMs: 1_209_600_000, maxAgeMs: 2_592_000_000, failuresPerAccount: 10, failuresPerAddress: 30, failureWindowMs: 900_000 },
    });
    expect(pgliteDir(config)).toBe('data/db/accounts');
  });

  it('when everything is set, then it is read, empty optional values count as unset and PUBLIC_URL loses its trailing slash', () => {
    const config = loadConfig({ ...base, DATA_DIR: '/srv', DATABASE_URL: '', GITHOST_ADMIN_TOKEN: '', HTTP_PORT: '0', GRPC_PORT: '9', PUBLIC_URL: 'https://git.example.com/' });
    expect(config).toMatchObject({ dataDir: '/srv', databaseUrl: undefined, adminToken: undefined, httpPort: 0, grpcPort: 9, publicUrl: 'https://git.example.com' });
  });

  it('when values are bad, then loading fails naming each variable', () => {
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: 'short', HTTP_PORT: 'x', GITHOST_ADMIN_TOKEN: 'tiny', DATABASE_URL: 'mysql://h/db' })).toThrow(
      /HTTP_PORT[\s\S]*GITHOST_INTERNAL_SECRET: must be at least 16 characters[\s\S]*GITHOST_ADMIN_TOKEN: must be at least 16 characters[\s\S]*GIT_STORAGE_GRPC_ADDR/,
    );
    expect(() => loadConfig({ ...base, DATABASE_URL: 'mysql://h/db' })).toThrow('DATABASE_URL: expected a postgres:// URL');
  });

  it('when GIT_STORAGE_SHARDS and a default shard are set, then both are read and no single address is needed', () => {
    const config = loadConfig({ GITHOST_INTERNAL_SECRET: base.GITHOST_INTERNAL_SECRET, GIT_STORAGE_SHARDS: 'default=s0:3102,shard-1=s1:3102', GIT_STORAGE_DEFAULT_SHARD: 'shard-1' });
    expect([[...config.storageShards], config.defaultShard]).toEqual([
      [
        ['default', 's0:3102'],
        ['shard-1', 's1:3102'],
      ],
      'shard-1',
    ]);
  });

  it('when the default shard is not one of the shards, then loading fails naming it', () => {
    expect(() => loadConfig({ ...base, GIT_STORAGE_DEFAULT_SHARD: 'shard-1' })).toThrow('GIT_STORAGE_DEFAULT_SHARD: names no shard of GIT_STORAGE_SHARDS');
  });
});
