import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repositoryPath } from '@githost/git-storage';
import { startGithost, type RunningGithost } from '@githost/launcher';
import { api, cloneUrl, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, removeWorkdirs, startReceiver, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/**
 * Sharded storage (docs/operating.md#adding-a-shard): one githost with two git-storage shards in one process. New
 * repositories spread over both; a repository on EACH shard is pushed, cloned, browsed, merged
 * (three-way) and webhooked through the one gateway.
 */
type Payload = { repository?: { name: string }; ref?: string; action?: string; merge_request?: { number: number; state: string } };

const SHARD_DIRS = (dataDir: string): Record<string, string> => ({ default: dataDir, 'shard-1': path.join(dataDir, 'shards', 'shard-1') });

describe('two git-storage shards behind one gateway', () => {
  let dataDir: string;
  let githost: RunningGithost;
  let gh: TestGithost;
  let alice: TestUser;
  let receiver: Receiver<Payload>;
  /** Repository name on each shard, found by looking on disk. */
  const onShard: Record<string, { name: string; id: string }> = {};

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'githost-e2e-shards-'));
    const adminToken = `e2e-admin-${randomBytes(16).toString('hex')}`;
    githost = await startGithost({
      port: 0,
      metricsPort: 0,
      sshPort: 0,
      dataDir,
      adminToken,
      shards: 2,
      env: { DATABASE_URL: '', AMQP_URL: '', GITHOST_WEBHOOK_ALLOW_PRIVATE: 'true', GITHOST_WEBHOOK_RETRY_BASE_MS: '50', GITHOST_SHARDS: '' },
    });
    gh = { url: `http://127.0.0.1:${githost.port}`, port: githost.port, sshPort: githost.sshPort, metricsUrl: `http://127.0.0.1:${githost.metricsPorts.gateway}/metrics`, adminToken, dataDir, grpcAddresses: githost.grpcAddresses, backend: 'embedded', exchange: 'githost.events', stop: () => githost.stop() };
    alice = await createUser(gh, 'alice');
    receiver = await startReceiver<Payload>();
  });

  afterAll(async () => {
    await receiver?.close();
    await githost?.stop();
    removeWorkdirs();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('when repositories are created, then they land on both shards, each on disk under its own shard only', async () => {
    for (let i = 1; i <= 4 && Object.keys(onShard).length < 2; i++) {
      const repo = await createRepo(gh, alice.token, `spread-${i}`);
      const holders = Object.entries(SHARD_DIRS(dataDir)).filter(([, dir]) => existsSync(repositoryPath(dir, repo.id)));
      expect(holders).toHaveLength(1);
      onShard[holders[0]![0]] ??= { name: repo.name, id: repo.id };
    }
    // Fewest-repositories placement: the first goes to `default`, the second to the empty shard.
    expect(onShard).toEqual({ default: { name: 'spread-1', id: expect.any(String) }, 'shard-1': { name: 'spread-2', id: expect.any(String) } });
  });

  describe.each([['default'], ['shard-1']])('a repository on shard %s', (shard) => {
    let name: string;
    let work: string;
    let base: string;
    const url = () => `/api/repos/alice/${name}`;

    beforeAll(async () => {
      name = onShard[shard]!.name;
      const hook = await api(gh, 'POST', `${url()}/webhooks`, { token: alice.token, body: { url: receiver.url, events: 'push,merge_request' } });
      expect(hook.status).toBe(201);
    });

    it('when pushed with git, then the commit is in that shard\'s bare repository and a push webhook is delivered', async () => {
      work = makeWorkdir();
      base = await commitFiles(work, { 'README.md': `# ${name}\n`, 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' }, 'first');
      await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', name), 'main');
      const bare = repositoryPath(SHARD_DIRS(dataDir)[shard]!, onShard[shard]!.id);
      expect(await git(bare, 'rev-parse', 'refs/heads/main')).toBe(base);
      const push = await eventually(() => receiver.received.find((d) => d.event === 'push' && d.body.repository?.name === name), 20_000);
      expect(push.body.ref).toBe('refs/heads/main');
    });

    it('when cloned anonymously, then the files come back', async () => {
      const clone = path.join(makeWorkdir(), 'clone');
      await git(path.dirname(clone), 'clone', '-q', cloneUrl(gh, 'alice', name), clone);
      expect([await git(clone, 'rev-parse', 'HEAD'), readFileSync(path.join(clone, 'src', 'a.txt'), 'utf8')]).toEqual([base, 'a\n']);
    });

    it('when browsed, then tree, blob and commits come from that shard', async () => {
      const tree = await api(gh, 'GET', `${url()}/tree/main/src`);
      expect([tree.status, tree.body.commit, tree.body.entries.map((e: { name: string }) => e.name)]).toEqual([200, base, ['a.txt', 'b.txt']]);
      const blob = await api(gh, 'GET', `${url()}/blob/main/README.md`);
      expect([blob.status, blob.body.content, blob.body.encoding]).toEqual([200, `# ${name}\n`, 'utf-8']);
      const commits = await api(gh, 'GET', `${url()}/commits/main`);
      expect([commits.status, commits.body.commits.map((c: { sha: string }) => c.sha)]).toEqual([200, [base]]);
    });

    it('when a merge request is merged after main moved on, then a three-way merge commit keeps both sides and a merge_request webhook is delivered', async () => {
      await git(work, 'checkout', '-q', '-b', 'feature');
      const feature = await commitFiles(work, { 'src/a.txt': 'a from feature\n' }, 'feature change');
      await git(work, 'checkout', '-q', 'main');
      const moved = await commitFiles(work, { 'src/b.txt': 'b from main\n' }, 'main change');
      await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', name), 'main', 'feature');

      const created = await api(gh, 'POST', `${url()}/merge-requests`, { token: alice.token, body: { title: `Feature on ${shard}`, source_branch: 'feature', target_branch: 'main' } });
      expect([created.status, created.body.number, created.body.source_sha]).toEqual([201, 1, feature]);
      const detail = await api(gh, 'GET', `${url()}/merge-requests/1`);
      expect([detail.body.mergeable, detail.body.diff.map((d: { path: string }) => d.path)]).toEqual([true, ['src/a.txt', 'src/b.txt']]);

      const merged = await api(gh, 'POST', `${url()}/merge-requests/1/merge`, { token: alice.token });
      expect([merged.status, merged.body.merged, merged.body.strategy]).toEqual([200, true, 'merge-commit']);
      const commit = await api(gh, 'GET', `${url()}/commit/${merged.body.sha as string}`);
      expect(commit.body.parents).toEqual([moved, feature]);
      for (const [file, content] of [['src/a.txt', 'a from feature\n'], ['src/b.txt', 'b from main\n']]) {
        expect((await api(gh, 'GET', `${url()}/blob/main/${file}`)).body.content).toBe(content);
      }
      const delivery = await eventually(() => receiver.received.find((d) => d.event === 'merge_request' && d.body.repository?.name === name), 20_000);
      expect([delivery.body.action, delivery.body.merge_request]).toEqual(['merged', { number: 1, title: `Feature on ${shard}`, state: 'merged' }]);
    });
  });
});
