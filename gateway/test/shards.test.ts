import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RepoContext } from '@githost/identity';
import { createServer, loadConfig, type Service } from '../src/index.js';
import type { AccountsGateway } from '../src/clients/accounts.js';
import { startEchoUpstream } from './support/echo-upstream.js';

const SECRET = 'gateway-shards-test-secret';

/** Accounts as far as the gateway cares: public repositories, each on the shard its record names. */
function accountsWithShards(shards: Record<string, string>): AccountsGateway {
  return {
    authenticate: () => Promise.reject(new Error('no tokens in this test')),
    async authorize(_principal, owner, name): Promise<RepoContext> {
      const shard = shards[name];
      if (shard === undefined) throw Object.assign(new Error('Repository not found'), { kind: 'not_found' });
      return { id: `id-${name}`, owner, name, default_branch: 'main', private: false, shard, permission: 'read', owner_id: 'u-alice' };
    },
    reachable: async () => true,
    close: () => undefined,
  };
}

/** Sharded storage (docs/operating.md#adding-a-shard): git transport goes to the smart-HTTP address of the repository's shard. */
describe('git transport over two git-storage shards', () => {
  let shardDefault: Awaited<ReturnType<typeof startEchoUpstream>>;
  let shardOne: Awaited<ReturnType<typeof startEchoUpstream>>;
  let gateway: Service;
  let base: string;

  beforeAll(async () => {
    [shardDefault, shardOne] = await Promise.all([startEchoUpstream('git-storage default', SECRET), startEchoUpstream('git-storage shard-1', SECRET)]);
    const config = loadConfig({
      PORT: '0',
      METRICS_PORT: '0',
      GITHOST_INTERNAL_SECRET: SECRET,
      ACCOUNTS_GRPC_ADDR: '127.0.0.1:1',
      GIT_STORAGE_HTTP_SHARDS: `default=${shardDefault.url},shard-1=${shardOne.url}`,
    });
    gateway = createServer(config, { accounts: accountsWithShards({ demo: 'default', other: 'shard-1', lost: 'shard-9' }) });
    base = `http://127.0.0.1:${(await gateway.start()).httpPort}`;
  });

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([shardDefault?.close(), shardOne?.close()]);
  });

  it('when repositories live on different shards, then each one\'s git requests reach its own shard only', async () => {
    for (const name of ['demo', 'other', 'demo']) {
      const res = await fetch(`${base}/alice/${name}.git/info/refs?service=git-upload-pack`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const seenBy = (u: typeof shardOne) => u.seen.map((s) => [s.url, 'error' in s.identity ? s.identity.error : s.identity.repo?.shard]);
    expect(seenBy(shardDefault)).toEqual([
      ['/alice/demo.git/info/refs?service=git-upload-pack', 'default'],
      ['/alice/demo.git/info/refs?service=git-upload-pack', 'default'],
    ]);
    expect(seenBy(shardOne)).toEqual([['/alice/other.git/info/refs?service=git-upload-pack', 'shard-1']]);
  });

  it('when a repository names a shard the gateway has no address for, then 503 JSON and no shard is asked', async () => {
    const before = shardDefault.seen.length + shardOne.seen.length;
    const res = await fetch(`${base}/alice/lost.git/info/refs?service=git-upload-pack`);
    expect([res.status, await res.json()]).toEqual([503, { error: 'Service unavailable' }]);
    expect(shardDefault.seen.length + shardOne.seen.length).toBe(before);
  });
});

describe('gateway shard configuration', () => {
  const env = { GITHOST_INTERNAL_SECRET: SECRET, ACCOUNTS_GRPC_ADDR: 'a:1' };

  it('when only GIT_STORAGE_HTTP_URL is set, then it is the one shard named default', () => {
    const config = loadConfig({ ...env, GIT_STORAGE_HTTP_URL: 'http://git-storage:3101' });
    expect([[...config.gitStorageShards!], config.upstreams['git-storage']]).toEqual([[['default', 'http://git-storage:3101']], 'http://git-storage:3101']);
  });

  it('when neither is set, then there is no git-storage upstream (git transport answers 503)', () => {
    const config = loadConfig(env);
    expect([config.gitStorageShards!.size, config.upstreams['git-storage']]).toEqual([0, undefined]);
  });

  it('when GIT_STORAGE_HTTP_SHARDS is malformed, then start-up fails naming it', () => {
    expect(() => loadConfig({ ...env, GIT_STORAGE_HTTP_SHARDS: 'default=git-storage:3101' })).toThrow(/GIT_STORAGE_HTTP_SHARDS: shard "default": expected an http\(s\) URL/);
  });
});
