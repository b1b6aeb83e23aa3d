import { describe, expect, it } from '@jest/globals';
import { browseDeps, listCommits, type RepoRef } from './browse.js';
import { ObjectCache } from './object-cache.js';
import type { RepositoryReader } from './ports.js';

// docs/decisions/gitea-api.md#the-count-on-every-page: the paged log's length, kept by commit id, path and `not` commit.
const COMMIT = 'c'.repeat(40);
const RAW_COMMIT = Buffer.from(`tree ${'e'.repeat(40)}\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nm\n`);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };

function setup(total: number, older = false) {
  const counted: string[] = [];
  const reader = {
    listRefs: () => Promise.resolve([]),
    resolveCommit: (_ctx, hex) => Promise.resolve(hex),
    listCommits: (_ctx, _commit, limit, offset, path, not) => Promise.resolve(Array.from({ length: Math.max(0, Math.min(limit, (path ? 3 : not ? 4 : total) - offset)) }, () => ({ oid: COMMIT, raw: RAW_COMMIT }))),
    countCommits: (_ctx, commit, path, not) => {
      counted.push(`${commit.slice(0, 1)} ${path ?? ''}${not ? ` ^${not.slice(0, 1)}` : ''}`);
      return Promise.resolve(older ? undefined : path ? 3 : not ? 4 : total);
    },
  } as Partial<RepositoryReader> as RepositoryReader;
  return { counted, deps: browseDeps(reader, new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 }) };
}

const page = (n: number, filePath = '', not = '') => ({ page: n, path: '/api/repos/a/b/commits/x', rawQuery: `limit=10&page=${n}`, filePath, not });

describe('the paged log counts its length once per commit and path', () => {
  it('when three pages and a path are read, then each carries X-Total-Count and Link up to last, and git-storage is asked once per path and `not`', async () => {
    const { counted, deps } = setup(25);
    const headers = [];
    for (const n of [1, 2, 3, 1]) {
      const prepared = await listCommits(deps, repo, COMMIT, '10', page(n));
      await prepared.body();
      headers.push(prepared.headers);
    }
    const at = (n: number) => `</api/repos/a/b/commits/x?limit=10&page=${n}>`;
    expect(headers).toEqual([
      { 'X-Total-Count': '25', Link: `${at(2)}; rel="next", ${at(3)}; rel="last"` },
      { 'X-Total-Count': '25', Link: `${at(1)}; rel="prev", ${at(3)}; rel="next", ${at(3)}; rel="last", ${at(1)}; rel="first"` },
      { 'X-Total-Count': '25', Link: `${at(2)}; rel="prev", ${at(1)}; rel="first"` },
      { 'X-Total-Count': '25', Link: `${at(2)}; rel="next", ${at(3)}; rel="last"` },
    ]);
    const byPath = await listCommits(deps, repo, COMMIT, '10', page(1, 'src'));
    await byPath.body();
    expect(byPath.headers).toEqual({ 'X-Total-Count': '3' });
    for (let i = 0; i < 2; i++) {
      const without = await listCommits(deps, repo, COMMIT, '10', page(1, '', 'a'.repeat(40)));
      await without.body();
      expect(without.headers).toEqual({ 'X-Total-Count': '4' });
    }
    expect(counted).toEqual(['c ', 'c src', 'c  ^a']);
  });

  it('when git-storage has no CountCommits (a rolling upgrade), then the page without a count or last, and the next read asks again', async () => {
    const { counted, deps } = setup(25, true);
    for (let i = 0; i < 2; i++) {
      const prepared = await listCommits(deps, repo, COMMIT, '10', page(1));
      await prepared.body();
      expect(prepared.headers).toEqual({ Link: '</api/repos/a/b/commits/x?limit=10&page=2>; rel="next"' });
    }
    expect(counted).toEqual(['c ', 'c ']);
  });
});
