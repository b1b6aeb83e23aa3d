import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const base = { GITHOST_INTERNAL_SECRET: 'a-secret-of-16-chars', GIT_STORAGE_GRPC_ADDR: '127.0.0.1:3102' };

describe('loadConfig', () => {
  it('when only the required variables are set, then the documented defaults apply', () => {
    expect(loadConfig(base)).toEqual({
      httpPort: 3301,
      metricsPort: 9464,
      bindHost: '0.0.0.0',
      internalSecret: 'a-secret-of-16-chars',
      storageShards: new Map([['default', '127.0.0.1:3102']]),
      maxBlobBytes: 10 * 1024 * 1024,
      cacheBytes: 64 * 1024 * 1024,
    });
  });

  it('when limits are given, then they are used', () => {
    expect(loadConfig({ ...base, HTTP_PORT: '0', BROWSE_MAX_BLOB_BYTES: '1024', BROWSE_CACHE_BYTES: '0' })).toMatchObject({ httpPort: 0, maxBlobBytes: 1024, cacheBytes: 0 });
  });

  it('when the storage address is missing, then boot stops naming the variable', () => {
    expect(() => loadConfig({ GITHOST_INTERNAL_SECRET: base.GITHOST_INTERNAL_SECRET })).toThrow(/GIT_STORAGE_GRPC_ADDR/);
  });

  it('when GIT_STORAGE_SHARDS is set, then every shard is read and no single address is needed', () => {
    const config = loadConfig({ GITHOST_INTERNAL_SECRET: base.GITHOST_INTERNAL_SECRET, GIT_STORAGE_SHARDS: 'default=s0:3102,shard-1=s1:3102' });
    expect([...config.storageShards.keys()]).toEqual(['default', 'shard-1']);
  });

  it('when the blob limit is not a positive integer, then boot stops naming the variable', () => {
    expect(() => loadConfig({ ...base, BROWSE_MAX_BLOB_BYTES: '0' })).toThrow(/BROWSE_MAX_BLOB_BYTES/);
  });

  it('when the secret is too short, then boot stops', () => {
    expect(() => loadConfig({ ...base, GITHOST_INTERNAL_SECRET: 'short' })).toThrow(/GITHOST_INTERNAL_SECRET/);
  });
});
