import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { callUnary } from '@githost/grpc';
import { commitAll, createTestRepository, git, makeWorkdir, writeFiles } from '@githost/git-storage/testing';
import type { StorageServiceClient } from '@githost/protos';
import { API, FIXTURE_REPO, pushOverHttp, repoContext, startHarness, type Harness } from './support/harness.js';

/** Counts browse's ListRefs calls. */
let listRefsCalls = 0;
function countListRefs(client: StorageServiceClient): StorageServiceClient {
  const counted = Object.create(client) as StorageServiceClient;
  const listRefs = client.ListRefs.bind(client) as unknown as (...args: unknown[]) => unknown;
  counted.ListRefs = ((...args: unknown[]) => {
    listRefsCalls++;
    return listRefs(...args);
  }) as unknown as StorageServiceClient['ListRefs'];
  return counted;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ wrapStorageClient: countListRefs });
});
afterAll(async () => {
  await h.stop();
});

const commitOf = async (path: string, repo?: Parameters<typeof repoContext>[0]): Promise<string> => ((await h.get(path, repo ? { repo } : {})).json() as { commit: string }).commit;

describe('ref-addressed reads with the refs watch live', () => {
  it('when the refs did not change, then warm ref-addressed reads ask git-storage for no refs', async () => {
    await h.get(`${API}/tree/main`);
    const before = listRefsCalls;
    for (let i = 0; i < 5; i++) {
      expect((await h.get(`${API}/tree/main`)).status).toBe(200);
      expect((await h.get(`${API}/blob/main/README.md`)).status).toBe(200);
      expect((await h.get(`${API}/branches`)).status).toBe(200);
    }
    expect(listRefsCalls).toBe(before);
  });

  it('when a push over smart HTTP returns, then the very next read shows the pushed commit', async () => {
    const work = await makeWorkdir();
    await git(work, 'fetch', '-q', `file://${h.storage.repoPath(FIXTURE_REPO)}`, 'refs/heads/main');
    await git(work, 'checkout', '-q', '-B', 'main', 'FETCH_HEAD');
    for (let i = 0; i < 3; i++) {
      await h.get(`${API}/tree/main`); // warm the snapshot
      await writeFiles(work, { [`watch-${i}.txt`]: `${i}\n` });
      const pushed = await commitAll(work, `watch ${i}`);
      await pushOverHttp(h, work);
      expect(await commitOf(`${API}/tree/main`)).toBe(pushed);
      expect(((await h.get(`${API}/blob/main/watch-${i}.txt`)).json() as { commit: string }).commit).toBe(pushed);
    }
  });

  it('when UpdateRef (a merge) returns, then the very next read shows the new commit', async () => {
    // `topic`, not the default branch: moving a branch back is a force update, which the default
    // branch's default protection refuses (@githost/ref-policy protectionFor) and any other branch accepts.
    const tip = await commitOf(`${API}/tree/topic`);
    const first = (await h.get(`${API}/commits/topic?limit=2`)).json() as { commits: { sha: string }[] };
    const parent = first.commits[1]!.sha;
    const ctx = { owner: 'alice', name: 'fixture', pusher: 'alice', request_id: 'merge' };
    await callUnary(h.storage.client, h.storage.client.UpdateRef, { repository_id: FIXTURE_REPO, ref: 'refs/heads/topic', new_oid: parent, old_oid: tip, context: ctx });
    expect(await commitOf(`${API}/tree/topic`)).toBe(parent);
    await callUnary(h.storage.client, h.storage.client.UpdateRef, { repository_id: FIXTURE_REPO, ref: 'refs/heads/topic', new_oid: tip, old_oid: parent, context: ctx });
    expect(await commitOf(`${API}/tree/topic`)).toBe(tip);
  });

  it('when a repository is removed, then reads of it stop answering from its refs', async () => {
    const id = 'browse-watch-removed';
    await createTestRepository(h.storage, id, 'main');
    const work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'a\n' });
    await commitAll(work, 'a');
    await git(work, 'push', '-q', `file://${h.storage.repoPath(id)}`, 'HEAD:refs/heads/main');
    const repo = { id, name: 'removed' };
    const before = (await h.get(`/api/repos/alice/removed/branches`, { repo })).json() as { branches: { name: string }[] };
    expect(before.branches.map((b) => b.name)).toEqual(['main']);
    await callUnary(h.storage.client, h.storage.client.RemoveRepository, { repository_id: id });
    await createTestRepository(h.storage, id, 'main'); // same id, no refs at all now
    expect((await h.get(`/api/repos/alice/removed/branches`, { repo })).json()).toEqual({ branches: [], default_branch: 'main' });
  });
});
