import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { listCommitChanges } from '../src/git/commit-changes.js';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-commit-changes';
let s: TestStorage;
let work: string;
const c: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  work = await makeWorkdir();
  await writeFiles(work, { 'a.txt': 'one\ntwo\n', 'b.txt': 'b\n', 'bin.dat': Buffer.from([0, 1, 2, 0, 255]) });
  c.root = await commitAll(work, 'root');
  await git(work, 'mv', 'a.txt', 'moved.txt');
  await writeFiles(work, { 'b.txt': 'b\nmore\n', 'bin.dat': Buffer.from([0, 9, 9, 0]) });
  c.rename = await commitAll(work, 'rename a, edit b, edit a binary');
  await git(work, 'checkout', '-q', '-b', 'side');
  await writeFiles(work, { 'side.txt': 's1\ns2\ns3\n' });
  c.side = await commitAll(work, 'side');
  await git(work, 'checkout', '-q', 'main');
  await rm(path.join(work, 'b.txt'));
  c.main = await commitAll(work, 'remove b');
  // Both sides change moved.txt in the merge itself (an "evil" merge): the one file the combined diff lists.
  await git(work, 'merge', '-q', '--no-ff', '--no-commit', 'side');
  await writeFiles(work, { 'moved.txt': 'one\ntwo\nmerged\n' });
  c.merge = await commitAll(work, 'merge side');
  await git(work, 'commit', '-q', '--allow-empty', '-m', 'empty');
  c.empty = (await git(work, 'rev-parse', 'HEAD')).trim();
  await pushTo(s, ID, work, 'main', 'side');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

const changes = (commit_oids: string[]) => rpc(s.client, s.client.ListCommitChanges, { repository_id: ID, commit_oids });

describe('ListCommitChanges', () => {
  it('when a page of commits is asked for, then each has its first-parent line counts and files in the order asked', async () => {
    const res = await changes([c.empty!, c.merge!, c.main!, c.side!, c.rename!, c.root!]);
    const by = Object.fromEntries(res.commits.map((x) => [x.oid, x]));
    expect(res.commits.map((x) => x.oid)).toEqual([c.empty, c.merge, c.main, c.side, c.rename, c.root]);
    // A root commit against the empty tree; the binary file counts no lines.
    expect(by[c.root!]).toMatchObject({ additions: 3, deletions: 0, files_truncated: false, files: [{ path: 'a.txt', status: 'added' }, { path: 'b.txt', status: 'added' }, { path: 'bin.dat', status: 'added' }] });
    // A rename counts no lines (detected, as git diff does) but is listed as a removal and an addition (Gitea's --no-renames).
    expect(by[c.rename!]).toMatchObject({
      additions: 1,
      deletions: 0,
      files: [{ path: 'moved.txt', status: 'added' }, { path: 'a.txt', status: 'removed' }, { path: 'b.txt', status: 'modified' }, { path: 'bin.dat', status: 'modified' }],
    });
    expect(by[c.main!]).toMatchObject({ additions: 0, deletions: 2, files: [{ path: 'b.txt', status: 'removed' }] });
    // A merge: lines against the first parent (side.txt's three and the merge's own line), files only those differing from every parent.
    expect(by[c.merge!]).toMatchObject({ additions: 4, deletions: 0, files: [{ path: 'moved.txt', status: 'modified' }] });
    expect(by[c.empty!]).toMatchObject({ additions: 0, deletions: 0, files: [], files_truncated: false });
  });

  it('when a commit changes more files than a commit lists, then the list is cut and says so, and the counts cover every file', async () => {
    const out = await listCommitChanges(s.repoPath(ID), [c.root!], { maxFilesPerCommit: 2, maxFilesPerCall: 100, timeoutMs: 10_000 });
    expect(out).toEqual([{ oid: c.root, additions: 3, deletions: 0, files: [{ path: 'a.txt', status: 'added' }, { path: 'b.txt', status: 'added' }], files_truncated: true }]);
  });

  it('when the call runs out of its budget of files, then the commits finished before come back and the rest are left out', async () => {
    const out = await listCommitChanges(s.repoPath(ID), [c.main!, c.side!, c.root!], { maxFilesPerCommit: 300, maxFilesPerCall: 2, timeoutMs: 10_000 });
    expect(out.map((x) => x.oid)).toEqual([c.main, c.side]);
  });

  it('when an id is not a full commit id, then the call is refused before git runs', async () => {
    await expect(changes(['--output=/tmp/x'])).rejects.toMatchObject({ kind: 'validation' });
    await expect(changes([c.root!.slice(0, 10)])).rejects.toMatchObject({ kind: 'validation' });
  });

  it('when an id names no object of this repository, then the call is not_found', async () => {
    await expect(changes(['0123456789012345678901234567890123456789'])).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('ResolveCommitExpression', () => {
  const resolve = (expression: string) => rpc(s.client, s.client.ResolveCommitExpression, { repository_id: ID, expression });

  it('when an id or a ref is followed by ancestry steps, then the commit they name comes back', async () => {
    expect((await resolve(`${c.merge}~1`)).oid).toBe(c.main);
    expect((await resolve(`${c.merge}^2`)).oid).toBe(c.side);
    expect((await resolve(`${c.empty}~2^`)).oid).toBe(c.rename);
    expect((await resolve('refs/heads/main~4')).oid).toBe(c.root);
    expect((await resolve(`${c.rename!.slice(0, 12)}^{commit}`)).oid).toBe(c.rename);
    expect((await resolve('refs/heads/side^{}')).oid).toBe(c.side);
  });

  it('when the steps walk past the root, then it is not_found', async () => {
    await expect(resolve(`${c.root}~1`)).rejects.toMatchObject({ kind: 'not_found' });
  });

  const id = '0123456789abcdef0123456789abcdef01234567';
  it.each(['-h', 'main~1', 'refs/heads/main@{1}', `${id}:a.txt`, `${id}^{/root}`, ':/root', `${id}..${id}`, `${id}^!`, 'refs/heads/main~1234567', 'HEAD'])(
    'when %s is asked for, then it is refused before git runs',
    async (expression) => {
      await expect(resolve(expression)).rejects.toMatchObject({ kind: 'validation' });
    },
  );
});
