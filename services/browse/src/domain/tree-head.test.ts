import { describe, expect, it } from '@jest/globals';
import { notFound } from '@githost/errors';
import { browseDeps, getTree, type JsonBody, type RepoRef, type TreeBody } from './browse.js';
import { ObjectCache } from './object-cache.js';
import type { RepositoryReader } from './ports.js';

// docs/decisions/big-pages.md#bounded-tree-read: what `?limit=` asks git-storage, against one that
// honours ReadTreeRequest.limit and one from before it (which sends the whole listing).
const COMMIT = 'c'.repeat(40);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };
const record = (i: number) => `100644 blob ${String(i).padStart(40, '0')}       ${i}\tf${i}\0`;
const ENTRIES = 5;
const text = (body: JsonBody | TreeBody): string => {
  if (typeof body === 'object' && 'streamed' in body) throw new Error('a bounded answer is never streamed');
  return typeof body === 'string' ? body : Buffer.concat(body.map((p) => Buffer.from(p))).toString();
};

function reader(honoursLimit: boolean, asked: Array<number | undefined>): RepositoryReader {
  return {
    listRefs: () => Promise.resolve([]),
    resolveCommit: () => Promise.resolve(COMMIT),
    readTree: (_ctx, _commit, path, opts) => {
      asked.push(opts?.limit);
      if (path !== 'd') return Promise.reject(notFound(`Path not found: ${path}`));
      const shown = honoursLimit && opts?.limit ? Math.min(opts.limit, ENTRIES) : ENTRIES;
      const entries = Buffer.from(Array.from({ length: shown }, (_, i) => record(i)).join(''));
      return Promise.resolve({ treeOid: 'e'.repeat(40), entries, count: ENTRIES });
    },
  } as Partial<RepositoryReader> as RepositoryReader;
}

async function bounded(honoursLimit: boolean, limit: string) {
  const asked: Array<number | undefined> = [];
  const deps = browseDeps(reader(honoursLimit, asked), new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 });
  const answer = await getTree(deps, repo, `${COMMIT}/d`, limit);
  const body = text(await answer.body());
  return { asked, body, total: answer.headers?.['X-Total-Count'] };
}

describe('a bounded tree read', () => {
  it('when ?limit=2 is asked, then ReadTree is asked for 2 and X-Total-Count is its count, not the records it sent', async () => {
    const { asked, body, total } = await bounded(true, '2');
    expect([asked, total]).toEqual([[2], '5']);
    expect(JSON.parse(body).entries.map((e: { name: string }) => e.name)).toEqual(['f0', 'f1']);
  });

  it('when git-storage ignores the limit (one from before it), then the answer is byte for byte the same', async () => {
    for (const limit of ['1', '2', '5', '1000']) {
      const current = await bounded(true, limit);
      const older = await bounded(false, limit);
      expect([limit, older.body, older.total]).toEqual([limit, current.body, '5']);
    }
  });

  it('when the path is missing, then the refusal of a read without a limit', async () => {
    const deps = browseDeps(reader(true, []), new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 });
    await expect((await getTree(deps, repo, `${COMMIT}/nope`, '2')).body()).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: nope' });
  });
});
