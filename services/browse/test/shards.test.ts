import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { commitAll, createTestRepository, makeWorkdir, pushTo, startTestStorage, cleanupWorkdirs, type TestStorage } from '@githost/git-storage/testing';
import { encodeIdentity } from '@githost/identity';
import { createServer, loadConfig, type BrowseService } from '../src/index.js';
import { repoContext } from './support/harness.js';

/** Sharded storage (docs/operating.md#adding-a-shard): browse reads each repository from the shard its record names. */
describe('browsing repositories on two git-storage shards', () => {
  const secret = randomBytes(16).toString('hex');
  let a: TestStorage;
  let b: TestStorage;
  let browse: BrowseService;
  let base: string;
  const tips: Record<string, string> = {};

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestStorage({ secret }), startTestStorage({ secret })]);
    // The same repository id on both shards with different histories: only the record's shard
    // decides which one is read.
    for (const [name, storage] of [['shard-a', a], ['shard-b', b]] as const) {
      await createTestRepository(storage, 'repo-1');
      const work = await makeWorkdir();
      tips[name] = await commitAll(work, `only on ${name}`);
      await pushTo(storage, 'repo-1', work, 'main');
    }
    const config = loadConfig({ GITHOST_INTERNAL_SECRET: secret, HTTP_PORT: '0', METRICS_PORT: '0', BIND_HOST: '127.0.0.1', GIT_STORAGE_SHARDS: `shard-a=${a.grpcAddress},shard-b=${b.grpcAddress}` });
    browse = createServer(config);
    base = `http://127.0.0.1:${(await browse.start()).httpPort}`;
  });

  afterAll(async () => {
    await browse?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
    await cleanupWorkdirs();
  });

  const commits = (shard: string) =>
    fetch(`${base}/api/repos/alice/fixture/commits/main`, {
      headers: encodeIdentity({ principal: null, repo: repoContext({ id: 'repo-1', shard }), request_id: 'r', issued_at: Date.now() }, secret),
    });

  it('when the record names either shard, then the commits come from that shard', async () => {
    for (const shard of ['shard-a', 'shard-b']) {
      const res = await commits(shard);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { commits: { sha: string; message: string }[] };
      expect(body.commits.map((c) => [c.sha, c.message.trim()])).toEqual([[tips[shard], `only on ${shard}`]]);
    }
  });

  it('when the record names a shard this service does not know, then 503 and not another shard', async () => {
    const res = await commits('shard-z');
    expect([res.status, await res.json()]).toEqual([503, { error: 'git-storage shard "shard-z" is not configured here (GIT_STORAGE_SHARDS names shard-a, shard-b)' }]);
  });
});
