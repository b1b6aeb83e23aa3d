import { describe, expect, it } from '@jest/globals';
import { browseDeps, getCommit, listCommits, type RepoRef } from './browse.js';
import { parseCommitStats, withCommitChanges } from './commit-changes.js';
import { ObjectCache } from './object-cache.js';
import type { CommitChanges, RepositoryReader } from './ports.js';

// docs/decisions/gitea-api.md#stats-and-files: one git-storage call per page, kept by commit id.
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const raw = (parent?: string) => Buffer.from(`tree ${'e'.repeat(40)}\n${parent ? `parent ${parent}\n` : ''}author A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nm\n`);
const repo: RepoRef = { repoId: 'r1', shard: 'default', requestId: 'q', defaultBranch: 'main' };

function setup(older = false) {
  const asked: string[][] = [];
  const log = [
    { oid: C, raw: raw(B) },
    { oid: B, raw: raw(A) },
    { oid: A, raw: raw() },
  ];
  const changes: Record<string, CommitChanges> = {
    [C]: { oid: C, additions: 2, deletions: 1, files: [{ path: 'x', status: 'modified' }], filesTruncated: false },
    [B]: { oid: B, additions: 0, deletions: 5, files: [{ path: 'y', status: 'removed' }], filesTruncated: true },
  };
  const reader = {
    listRefs: () => Promise.resolve([{ name: 'refs/heads/main', target: C, peeled: '' }]),
    resolveCommit: (_ctx, hex) => Promise.resolve(hex),
    readCommit: (_ctx, hex) => Promise.resolve(log.find((c) => c.oid === hex)!),
    listCommits: (_ctx, _commit, limit, offset) => Promise.resolve(log.slice(offset, offset + limit)),
    countCommits: () => Promise.resolve(3),
    listCommitChanges: (_ctx, oids) => {
      asked.push([...oids]);
      // A is left out, as git-storage does when its budget of files runs out.
      return Promise.resolve(older ? undefined : oids.filter((o) => changes[o]).map((o) => changes[o]!));
    },
  } as Partial<RepositoryReader> as RepositoryReader;
  return { asked, reader, deps: browseDeps(reader, new ObjectCache(1 << 20), { maxBlobBytes: 1 << 20 }) };
}

const stats = (c: Record<string, unknown>) => ({ stats: c.stats, files: c.files, files_truncated: c.files_truncated });

describe('stats and files of commits', () => {
  it('when a log page is asked with stats, then each commit carries them, git-storage is asked once for the page and never again for a commit it answered', async () => {
    const { asked, reader, deps } = setup();
    for (let i = 0; i < 2; i++) {
      const prepared = withCommitChanges(reader, deps.cache, repo, await listCommits(deps, repo, 'main', '10'), (b) => b.commits as Array<Record<string, unknown>>);
      const body = JSON.parse((await prepared.body()) as string) as { commits: Array<Record<string, unknown>> };
      expect(body.commits.map(stats)).toEqual([
        { stats: { total: 3, additions: 2, deletions: 1 }, files: [{ filename: 'x', status: 'modified' }], files_truncated: false },
        { stats: { total: 5, additions: 0, deletions: 5 }, files: [{ filename: 'y', status: 'removed' }], files_truncated: true },
        { stats: undefined, files: undefined, files_truncated: undefined },
      ]);
    }
    // A, left out, is asked again on the next read; C and B are kept.
    expect(asked).toEqual([[C, B, A], [A]]);
  });

  it('when the log is asked with and without stats, then the two answers have different validators', async () => {
    const { reader, deps } = setup();
    const plain = await listCommits(deps, repo, 'main', '10');
    expect(withCommitChanges(reader, deps.cache, repo, plain, (b) => b.commits as Array<Record<string, unknown>>).etag).not.toBe(plain.etag);
  });

  it('when one commit is asked with stats, then it carries them; a git-storage without ListCommitChanges gives the record as it was', async () => {
    const { reader, deps } = setup();
    const one = withCommitChanges(reader, deps.cache, repo, await getCommit(deps, repo, C), (b) => [b]);
    expect(stats(JSON.parse((await one.body()) as string) as Record<string, unknown>)).toEqual({ stats: { total: 3, additions: 2, deletions: 1 }, files: [{ filename: 'x', status: 'modified' }], files_truncated: false });
    const older = setup(true);
    const plain = withCommitChanges(older.reader, older.deps.cache, repo, await getCommit(older.deps, repo, C), (b) => [b]);
    expect(JSON.parse((await plain.body()) as string)).not.toHaveProperty('stats');
  });

  it('when stats is anything but true or false, then it is a 400', () => {
    expect(parseCommitStats(undefined)).toBe(false);
    expect(parseCommitStats('true')).toBe(true);
    expect(parseCommitStats('false')).toBe(false);
    for (const bad of ['1', 'yes', ['true', 'true']]) expect(() => parseCommitStats(bad)).toThrow(expect.objectContaining({ kind: 'validation' }));
  });
});
