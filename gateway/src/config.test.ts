import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

const REQUIRED = { GITHOST_INTERNAL_SECRET: 'config-test-internal-secret', ACCOUNTS_GRPC_ADDR: '127.0.0.1:50051' };

describe('gateway config', () => {
  it('when no rate-limit variables are set, then REST gets 600 per token and 120 per anonymous address a minute, git 1200 and 600, LFS transfers 6000 per user, no proxy trusted', () => {
    const config = loadConfig(REQUIRED);
    expect([config.rateLimits, config.trustProxy]).toEqual([
      { perTokenPerMinute: 600, anonymousPerMinute: 120, git: { perTokenPerMinute: 1200, perAddressPerMinute: 600 }, lfs: { perUserPerMinute: 6000 } },
      false,
    ]);
  });

  it('when they are set, then they are taken, 0 included, and GITHOST_TRUST_PROXY reads as hops, a switch or addresses', () => {
    const config = loadConfig({
      ...REQUIRED,
      GITHOST_RATE_LIMIT_PER_MINUTE: '0',
      GITHOST_RATE_LIMIT_ANON_PER_MINUTE: '30',
      GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '0',
      GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '45',
      GITHOST_LFS_RATE_LIMIT_PER_MINUTE: '0',
      GITHOST_TRUST_PROXY: '1',
    });
    expect([config.rateLimits, config.trustProxy]).toEqual([{ perTokenPerMinute: 0, anonymousPerMinute: 30, git: { perTokenPerMinute: 0, perAddressPerMinute: 45 }, lfs: { perUserPerMinute: 0 } }, 1]);
    expect(loadConfig({ ...REQUIRED, GITHOST_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
    expect(loadConfig({ ...REQUIRED, GITHOST_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });

  it('when a limit is not a whole number, then the config is refused naming the variable', () => {
    expect(() => loadConfig({ ...REQUIRED, GITHOST_RATE_LIMIT_PER_MINUTE: 'lots' })).toThrow(/GITHOST_RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ ...REQUIRED, GITHOST_GIT_RATE_LIMIT_PER_MINUTE: '-1' })).toThrow(/GITHOST_GIT_RATE_LIMIT_PER_MINUTE/);
    expect(() => loadConfig({ ...REQUIRED, GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE: '1.5' })).toThrow(/GITHOST_GIT_RATE_LIMIT_ANON_PER_MINUTE/);
    expect(() => loadConfig({ ...REQUIRED, GITHOST_LFS_RATE_LIMIT_PER_MINUTE: 'many' })).toThrow(/GITHOST_LFS_RATE_LIMIT_PER_MINUTE/);
  });

  it('when git-storage gRPC is named, then the ref watch has its shards; without, none; the edge keeps 10,000 entries unless told', () => {
    const none = loadConfig(REQUIRED);
    expect([none.gitStorageGrpcShards, none.edgeCacheEntries]).toEqual([undefined, 10_000]);
    expect(loadConfig({ ...REQUIRED, GIT_STORAGE_GRPC_ADDR: '127.0.0.1:50052', GITHOST_EDGE_CACHE_ENTRIES: '0' })).toMatchObject({ gitStorageGrpcShards: new Map([['default', '127.0.0.1:50052']]), edgeCacheEntries: 0 });
    expect(loadConfig({ ...REQUIRED, GIT_STORAGE_SHARDS: 'default=127.0.0.1:1,shard-1=127.0.0.1:2' }).gitStorageGrpcShards).toEqual(new Map([['default', '127.0.0.1:1'], ['shard-1', '127.0.0.1:2']]));
  });

  it('when WEB_FALLBACK_URL is set (replicas: every web replica behind haproxy), then the web upstream has it as its fallback; unset, none; not a URL, refused', () => {
    expect(loadConfig({ ...REQUIRED, WEB_URL: 'http://127.0.0.1:4601', WEB_FALLBACK_URL: 'http://127.0.0.1:4600' })).toMatchObject({ upstreams: { web: 'http://127.0.0.1:4601' }, fallbacks: { web: 'http://127.0.0.1:4600' } });
    expect(loadConfig(REQUIRED).fallbacks).toEqual({ web: undefined });
    expect(() => loadConfig({ ...REQUIRED, WEB_FALLBACK_URL: 'web-section' })).toThrow(/WEB_FALLBACK_URL/);
  });

  it('when GITHOST_BODY_TIMEOUT_MS is unset, then a body may be silent 30 s; set, then that long; 0 or words are refused', () => {
    expect([loadConfig(REQUIRED).bodyTimeoutMs, loadConfig({ ...REQUIRED, GITHOST_BODY_TIMEOUT_MS: '5000' }).bodyTimeoutMs]).toEqual([30_000, 5_000]);
    expect(() => loadConfig({ ...REQUIRED, GITHOST_BODY_TIMEOUT_MS: '0' })).toThrow(/GITHOST_BODY_TIMEOUT_MS/);
    expect(() => loadConfig({ ...REQUIRED, GITHOST_BODY_TIMEOUT_MS: 'soon' })).toThrow(/GITHOST_BODY_TIMEOUT_MS/);
  });
});
