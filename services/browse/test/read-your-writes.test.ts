import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitAll, git, makeWorkdir, writeFiles } from '@githost/git-storage/testing';
import type { StorageServiceClient } from '@githost/protos';
import { API, FIXTURE_REPO, pushOverHttp, startHarness, type Harness } from './support/harness.js';

/**
 * Holds every ListRefs answer back a while after git-storage sent it, as a loaded machine would:
 * a read that began before a push returned is then still in flight after it, which is exactly
 * the answer a later request must not be given.
 */
const HOLD_MS = 250;
type Callback = (err: unknown, res: unknown) => void;
function holdListRefs(client: StorageServiceClient): StorageServiceClient {
  const held = Object.create(client) as StorageServiceClient;
  const listRefs = client.ListRefs.bind(client) as unknown as (req: unknown, md: unknown, opts: unknown, cb: Callback) => unknown;
  const wrapped = (req: unknown, md: unknown, opts: unknown, cb: Callback) => listRefs(req, md, opts, (err, res) => setTimeout(() => cb(err, res), HOLD_MS));
  held.ListRefs = wrapped as unknown as StorageServiceClient['ListRefs'];
  return held;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ wrapStorageClient: holdListRefs });
});
afterAll(async () => {
  await h.stop();
});

describe('read-your-writes under concurrent browsing', () => {
  it('when a push returns while other requests keep ref reads in flight, then the next browse of the branch shows the pushed commit', async () => {
    const work = await makeWorkdir();
    await git(work, 'fetch', '-q', `file://${h.storage.repoPath(FIXTURE_REPO)}`, 'refs/heads/main');
    await git(work, 'checkout', '-q', '-B', 'main', 'FETCH_HEAD');

    // Readers hammer the same repository, so a ref read is almost always under way when the push returns.
    let stop = false;
    const reader = async () => {
      while (!stop) await h.get(`${API}/branches`);
    };
    const readers = Array.from({ length: 16 }, reader);
    try {
      for (let i = 0; i < 5; i++) {
        await writeFiles(work, { [`ryw-${i}.txt`]: `push ${i}\n` });
        const pushed = await commitAll(work, `push ${i}\n`);
        await pushOverHttp(h, work);

        const [tree, commits, branches] = await Promise.all([h.get(`${API}/tree/main`), h.get(`${API}/commits/main?limit=1`), h.get(`${API}/branches`)]);
        expect((tree.json() as { commit: string }).commit).toBe(pushed);
        expect((commits.json() as { commits: { sha: string }[] }).commits[0]?.sha).toBe(pushed);
        expect((branches.json() as { branches: { name: string; sha: string }[] }).branches.find((b) => b.name === 'main')?.sha).toBe(pushed);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
  });
});
