import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const base = { GITHOST_INTERNAL_SECRET: 'x'.repeat(16), GIT_STORAGE_GRPC_ADDR: '127.0.0.1:9001', ACCOUNTS_GRPC_ADDR: 'localhost:9002' };

describe('loadConfig', () => {
  it('when only the required variables are set, then the documented defaults apply', () => {
    expect(loadConfig(base)).toEqual({
      dataDir: './data',
      databaseUrl: undefined,
      httpPort: 3401,
      metricsPort: 9464,
      bindHost: '0.0.0.0',
      internalSecret: 'x'.repeat(16),
      gitStorageShards: new Map([['default', '127.0.0.1:9001']]),
      accountsAddr: 'localhost:9002',
      amqpUrl: undefined,
      eventsExchange: 'githost.events',
      eventsQueue: 'githost.merge-requests',
      publicUrl: 'http://localhost:3000',
      handledEventsRetentionDays: 7,
      diffCacheBytes: 64 * 1024 * 1024,
    });
  });

  it('when DATABASE_URL and AMQP_URL are empty strings, then they count as unset', () => {
    expect(loadConfig({ ...base, DATABASE_URL: '', AMQP_URL: '' })).toMatchObject({ databaseUrl: undefined, amqpUrl: undefined });
  });

  it('when a value is bad, then loading fails naming every offending variable', () => {
    expect(() => loadConfig({ ...base, GITHOST_INTERNAL_SECRET: 'short', HTTP_PORT: 'x', GIT_STORAGE_GRPC_ADDR: 'nohost' })).toThrow(/GITHOST_INTERNAL_SECRET[\s\S]*HTTP_PORT|HTTP_PORT[\s\S]*GITHOST_INTERNAL_SECRET/);
    expect(() => loadConfig({})).toThrow(/ACCOUNTS_GRPC_ADDR/);
    expect(() => loadConfig({})).toThrow(/GIT_STORAGE_GRPC_ADDR: required \(host:port\) unless GIT_STORAGE_SHARDS is set/);
  });

  it('when GIT_STORAGE_SHARDS is set, then every shard is read and no single address is needed', () => {
    const { GIT_STORAGE_GRPC_ADDR: _unused, ...rest } = base;
    expect([...loadConfig({ ...rest, GIT_STORAGE_SHARDS: 'default=s0:3102,shard-1=s1:3102' }).gitStorageShards]).toEqual([
      ['default', 's0:3102'],
      ['shard-1', 's1:3102'],
    ]);
  });
});
