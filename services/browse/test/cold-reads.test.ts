import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { StorageServiceClient } from '@githost/protos';
import { API, startHarness, type Harness } from './support/harness.js';

// docs/decisions/gateway-serves-warm-reads.md#one-call-a-cold-read: a cold read by full commit id
// is one call to git-storage, which confirms the id itself; the answers are those of a confirmed read.
const asked: string[] = [];
function countCalls(client: StorageServiceClient): StorageServiceClient {
  const counted = Object.create(client) as StorageServiceClient;
  for (const method of ['ResolveRevision', 'ReadTree', 'ReadTreeStream', 'ReadBlob', 'ListCommits'] as const) {
    const call = (client[method] as unknown as (...args: unknown[]) => unknown).bind(client);
    (counted as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      asked.push(method);
      return call(...args);
    };
  }
  return counted;
}

let h: Harness;
let tip: string;
let tag: string;
let peeled: string;
beforeAll(async () => {
  h = await startHarness({ wrapStorageClient: countCalls });
  tip = (await h.git('rev-parse', 'refs/heads/main')).trim();
  tag = (await h.git('rev-parse', 'refs/tags/v1.0')).trim();
  peeled = (await h.git('rev-parse', 'refs/tags/v1.0^{commit}')).trim();
});
afterAll(async () => {
  await h.stop();
});

/** Each read on a fresh harness state: a commit id no request confirmed yet. */
async function coldRead(url: string) {
  asked.length = 0;
  const answer = await h.get(url);
  return { answer, asked: [...asked] };
}

describe('cold reads by full commit id through git-storage', () => {
  it('when a new commit\'s tree, file and log are read, then each is one call, no ResolveRevision, and the answers name the commit', async () => {
    const tree = await coldRead(`${API}/tree/${tip}`);
    expect(tree.asked).toEqual(['ReadTreeStream']);
    expect(tree.answer.status).toBe(200);
    expect(JSON.parse(tree.answer.body.toString())).toMatchObject({ ref: tip, commit: tip, path: '' });
    expect(JSON.parse(tree.answer.body.toString()).entries.map((e: { name: string }) => e.name)).toEqual((await h.git('-c', 'core.quotePath=false', 'ls-tree', '--name-only', tip)).trim().split('\n'));
  });

  it('when the id is an annotated tag\'s, then the read confirms nothing and the answer is the peeled commit\'s as before', async () => {
    const blob = await coldRead(`${API}/blob/${tag}/README.md`);
    expect(blob.asked).toEqual(['ReadBlob', 'ResolveRevision', 'ReadBlob']);
    expect(JSON.parse(blob.answer.body.toString())).toMatchObject({ ref: tag, commit: peeled, path: 'README.md', content: await h.git('cat-file', 'blob', `${peeled}:README.md`) });
  });

  it('when the log and a file below an older commit are read, then each is one call', async () => {
    const older = (await h.git('rev-parse', `${tip}~3`)).trim();
    const log = await coldRead(`${API}/commits/${older}?limit=5`);
    expect(log.asked).toEqual(['ListCommits']);
    expect(JSON.parse(log.answer.body.toString()).commits.map((c: { sha: string }) => c.sha)).toEqual((await h.git('rev-list', '-n', '5', older)).trim().split('\n'));
    const parent = (await h.git('rev-parse', `${tip}~4`)).trim();
    const blob = await coldRead(`${API}/blob/${parent}/src/main.ts`);
    expect(blob.asked).toEqual(['ReadBlob']);
    expect(JSON.parse(blob.answer.body.toString())).toMatchObject({ commit: parent, sha: (await h.git('rev-parse', `${parent}:src/main.ts`)).trim() });
  });

  it('when the id names no commit here, then the answer is the 404 it always was', async () => {
    const missing = 'f'.repeat(40);
    const tree = await coldRead(`${API}/tree/${missing}`);
    expect([tree.answer.status, JSON.parse(tree.answer.body.toString())]).toEqual([404, { error: `Ref not found: ${missing}` }]);
  });
});
