import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '@githost/errors';
import { ReadCaches } from '../cache/read-caches.js';
import { CatfilePool } from './catfile-pool.js';
import { COMPARE_BUDGET_DEFAULTS } from './compare.js';
import { gitProcessesStarted } from './command.js';
import { GitCancelledError, GitTimeoutError } from './errors.js';
import { LocalRepository } from './local-repository.js';
import { RefsCache } from './refs-cache.js';
import { RefUpdaters } from './ref-updaters.js';
import { ZERO_OID } from '@githost/git-records/object-id';

const MISSING = 'd'.repeat(40);
const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };

let root: string;
let gitDir: string;
let pool: CatfilePool;
let refUpdates: RefUpdaters;
let repo: LocalRepository;
let caches: ReadCaches;
let first: string;
let second: string;
let third: string;
let unrelated: string;
let tree: string;
let withFiles: string;

function git(...args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { env }).toString().trim();
}

/** The AppError kind and message a promise rejects with. */
async function refusal(p: Promise<unknown>): Promise<{ kind: string; message: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return { kind: err.kind, message: err.message };
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-localrepo-'));
  gitDir = path.join(root, 'r.git');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', gitDir], { env });
  const empty = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], { input: '', env }).toString().trim();
  first = git('commit-tree', empty, '-m', 'first');
  second = git('commit-tree', empty, '-p', first, '-m', 'second');
  third = git('commit-tree', empty, '-p', second, '-m', 'third');
  unrelated = git('commit-tree', empty, '-m', 'unrelated');
  tree = empty;
  git('update-ref', 'refs/heads/main', second);
  const blob = execFileSync('git', [`--git-dir=${gitDir}`, 'hash-object', '-w', '--stdin'], { input: 'hello\n', env }).toString().trim();
  const dir = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], { input: `100644 blob ${blob}\tinner.txt\n`, env }).toString().trim();
  const top = execFileSync('git', [`--git-dir=${gitDir}`, 'mktree'], { input: `100644 blob ${blob}\thello.txt\n040000 tree ${dir}\tdir\n`, env }).toString().trim();
  withFiles = git('commit-tree', top, '-m', 'files');
  pool = new CatfilePool();
  caches = new ReadCaches();
  refUpdates = new RefUpdaters();
  repo = new LocalRepository(gitDir, { pool, refUpdates, refs: new RefsCache(), cache: caches });
});

afterAll(async () => {
  pool.close();
  refUpdates.close();
  await rm(root, { recursive: true, force: true });
});

describe('LocalRepository reads', () => {
  it('when a commit exists, then listCommits pages its log; when it does not, then not_found names it', async () => {
    expect((await repo.listCommits(second, 10, 0)).map((c) => c.oid)).toEqual([second, first]);
    expect((await repo.listCommits(second, 10, 1)).map((c) => c.oid)).toEqual([first]);
    expect(await refusal(repo.listCommits(MISSING, 10, 0))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
  });

  it('when a path is given, then listCommits lists only the commits touching it, taken literally', async () => {
    const child = git('commit-tree', git('rev-parse', `${withFiles}^{tree}`), '-p', withFiles, '-m', 'touches nothing');
    expect((await repo.listCommits(child, 10, 0)).map((c) => c.oid)).toEqual([child, withFiles]);
    expect((await repo.listCommits(child, 10, 0, undefined, 'dir')).map((c) => c.oid)).toEqual([withFiles]);
    expect((await repo.listCommits(child, 10, 0, undefined, 'dir/inner.txt')).map((c) => c.oid)).toEqual([withFiles]);
    expect(await repo.listCommits(child, 10, 1, undefined, 'hello.txt')).toEqual([]);
    expect(await repo.listCommits(child, 10, 0, undefined, 'missing.txt')).toEqual([]);
    expect(await repo.listCommits(child, 10, 0, undefined, ':(glob)*')).toEqual([]);
  });

  it('when a log is counted, then countCommits is the length listCommits pages, by path too, and not_found for a missing commit', async () => {
    const child = git('commit-tree', git('rev-parse', `${withFiles}^{tree}`), '-p', withFiles, '-m', 'touches nothing');
    expect(await repo.countCommits(second)).toBe(2);
    expect(await repo.countCommits(child)).toBe(2);
    expect(await repo.countCommits(child, undefined, 'dir')).toBe(1);
    expect(await repo.countCommits(child, undefined, 'missing.txt')).toBe(0);
    expect(await repo.countCommits(child, undefined, ':(glob)*')).toBe(0);
    expect(await refusal(repo.countCommits(MISSING))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
  });

  it('when `not` is given (Gitea\'s not), then listCommits and countCommits leave its history out, page by page, by path too; a missing one is not_found naming it', async () => {
    const merge = git('commit-tree', tree, '-p', third, '-p', unrelated, '-m', 'merge');
    const expected = git('rev-list', merge, `^${second}`).split('\n');
    expect(expected).toHaveLength(3);
    expect((await repo.listCommits(merge, 10, 0, undefined, '', second)).map((c) => c.oid)).toEqual(expected);
    expect((await repo.listCommits(merge, 1, 1, undefined, '', second)).map((c) => c.oid)).toEqual(expected.slice(1, 2));
    expect(await repo.countCommits(merge, undefined, '', second)).toBe(3);
    expect((await repo.listCommits(third, 10, 0, undefined, '', first)).map((c) => c.oid)).toEqual([third, second]);
    expect(await repo.countCommits(third, undefined, '', first)).toBe(2);
    // Itself, or a descendant: nothing is left.
    expect([await repo.listCommits(third, 10, 0, undefined, '', third), await repo.countCommits(second, undefined, '', third)]).toEqual([[], 0]);
    // Unrelated history leaves the whole log.
    expect((await repo.listCommits(third, 10, 0, undefined, '', unrelated)).map((c) => c.oid)).toEqual([third, second, first]);
    expect(await repo.countCommits(third, undefined, '', unrelated)).toBe(3);
    const child = git('commit-tree', git('rev-parse', `${withFiles}^{tree}`), '-p', withFiles, '-m', 'touches nothing');
    expect([(await repo.listCommits(child, 10, 0, undefined, 'dir', unrelated)).map((c) => c.oid), await repo.countCommits(child, undefined, 'dir', unrelated)]).toEqual([[withFiles], 1]);
    expect([await repo.listCommits(child, 10, 0, undefined, 'dir', withFiles), await repo.countCommits(child, undefined, 'dir', withFiles)]).toEqual([[], 0]);
    expect(await refusal(repo.listCommits(third, 10, 0, undefined, '', MISSING))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
    expect(await refusal(repo.countCommits(third, undefined, '', MISSING))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
    expect(await refusal(repo.countCommits(MISSING, undefined, '', third))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
  });

  it('when the caller cancels, then listCommits fails with a cancellation, which is also a timeout', async () => {
    const err = await repo.listCommits(first, 5, 0, AbortSignal.abort()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitCancelledError);
    expect(err).toBeInstanceOf(GitTimeoutError);
  });

  it('when a caller joined a page load that its starter cancelled, then it asks again and gets the page', async () => {
    const starter = new AbortController();
    const cancelled = repo.listCommits(second, 7, 0, starter.signal).catch((e: unknown) => e);
    const joined = repo.listCommits(second, 7, 0);
    starter.abort();
    expect(await cancelled).toBeInstanceOf(GitCancelledError);
    expect((await joined).map((c) => c.oid)).toEqual([second, first]);
  });

  it('when a commit is missing, then ancestry, merge base and compare answer not_found; unrelated histories have no merge base', async () => {
    expect(await repo.isAncestor(first, second)).toBe(true);
    expect(await repo.isAncestor(second, first)).toBe(false);
    expect(await refusal(repo.isAncestor(MISSING, second))).toEqual({ kind: 'not_found', message: 'Commit not found' });
    expect(await repo.mergeBase(first, second)).toBe(first);
    expect(await repo.mergeBase(second, unrelated)).toBe('');
    expect(await refusal(repo.mergeBase(second, MISSING))).toEqual({ kind: 'not_found', message: 'Commit not found' });
    expect(await refusal(repo.compare(MISSING, second, 10, COMPARE_BUDGET_DEFAULTS))).toEqual({ kind: 'not_found', message: 'Commit not found' });
    const cmp = await repo.compare(first, second, 10, COMPARE_BUDGET_DEFAULTS);
    expect({ mergeBase: cmp.mergeBase, aheadBy: cmp.aheadBy, behindBy: cmp.behindBy, commits: cmp.commits.map((c) => c.oid) }).toEqual({
      mergeBase: first,
      aheadBy: 1,
      behindBy: 0,
      commits: [second],
    });
  });

  it('when a revision is missing, then resolveRevision and readCommit say which', async () => {
    expect(await repo.resolveRevision('refs/heads/main')).toBe(second);
    expect(await refusal(repo.resolveRevision('refs/heads/nope'))).toEqual({ kind: 'not_found', message: 'Ref not found: refs/heads/nope' });
    expect(await refusal(repo.resolveRevision(MISSING))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
    expect(await refusal(repo.readCommit(MISSING))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
  });
});

describe('LocalRepository blobs', () => {
  it('when a path names a file, then findBlob gives its header and readBlob its bytes; a directory or missing path is refused', async () => {
    const blob = await repo.findBlob(withFiles, 'dir/inner.txt');
    expect({ size: blob.size, mode: blob.mode, path: blob.path }).toEqual({ size: 6, mode: '100644', path: 'dir/inner.txt' });
    const chunks: Buffer[] = [];
    for await (const chunk of repo.readBlob(blob, 4)) chunks.push(chunk);
    expect(chunks.map((c) => c.toString())).toEqual(['hell', 'o\n']);
    expect(await refusal(repo.findBlob(withFiles, 'dir'))).toEqual({ kind: 'validation', message: 'Not a file: dir' });
    expect(await refusal(repo.findBlob(withFiles, 'nope.txt'))).toEqual({ kind: 'not_found', message: 'Path not found: nope.txt' });
    expect(await refusal(repo.findBlob(MISSING, 'hello.txt'))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
  });
});

describe('LocalRepository.updateRef', () => {
  it('when the ref is at the old value, then it moves; when it moved meanwhile, then a conflict', async () => {
    await repo.updateRef('refs/heads/topic', first, ZERO_OID);
    expect(git('rev-parse', 'refs/heads/topic')).toBe(first);
    expect(await refusal(repo.updateRef('refs/heads/topic', second, unrelated))).toEqual({ kind: 'conflict', message: `Ref changed: refs/heads/topic is no longer at ${unrelated}` });
    expect(await repo.refValue('refs/heads/topic')).toBe(first);
    await repo.updateRef('refs/heads/topic', ZERO_OID, first);
    expect(await repo.refValue('refs/heads/topic')).toBe(ZERO_OID);
  });

  it('when another writer holds the lock for good, then a conflict saying it is being updated', async () => {
    git('update-ref', 'refs/heads/held', first);
    const lock = path.join(gitDir, 'refs', 'heads', 'held.lock');
    await writeFile(lock, '');
    try {
      expect(await refusal(repo.updateRef('refs/heads/held', second, first))).toEqual({ kind: 'conflict', message: 'Ref changed: refs/heads/held is being updated' });
    } finally {
      await rm(lock, { force: true });
    }
    expect(git('rev-parse', 'refs/heads/held')).toBe(first);
  });

  it('when the new value is not a commit, then not_found names it and the ref stays', async () => {
    expect(await refusal(repo.updateRef('refs/heads/main', tree, second))).toEqual({ kind: 'not_found', message: `Commit not found: ${tree}` });
    expect(git('rev-parse', 'refs/heads/main')).toBe(second);
  });

  it('when the new value names no object at all, then not_found names it and the ref stays', async () => {
    expect(await refusal(repo.updateRef('refs/heads/main', MISSING, second))).toEqual({ kind: 'not_found', message: `Commit not found: ${MISSING}` });
    expect(git('rev-parse', 'refs/heads/main')).toBe(second);
  });

  it('when a move is asked about, then isForced tells a rewrite from a fast-forward, and an unknown id is not forced', async () => {
    expect(await repo.isForced(first, second)).toBe(false);
    expect(await repo.isForced(second, first)).toBe(true);
    expect(await repo.isForced(MISSING, second)).toBe(false);
    expect(await repo.isForced(ZERO_OID, second)).toBe(false);
  });

  it('when ancestry is asked of commits that are not parent and child, then the walk through cat-file answers as git does, without starting git', async () => {
    expect(await repo.isAncestor(second, third)).toBe(true); // a direct parent; the pool's process is warm after it
    const started = gitProcessesStarted();
    expect(await repo.isAncestor(first, third)).toBe(true);
    expect(await repo.isAncestor(third, first)).toBe(false);
    expect(await repo.isAncestor(unrelated, third)).toBe(false);
    expect(await repo.isForced(third, first)).toBe(true);
    expect(gitProcessesStarted()).toBe(started);
    expect(await refusal(repo.isAncestor(first, MISSING))).toEqual({ kind: 'not_found', message: 'Commit not found' });
  });

  it('when a merge is to be prepared, then its tree is started on a "no" only, not for a fast-forward the walk found', async () => {
    expect(await repo.isAncestor(first, third, undefined, true)).toBe(true);
    expect(await caches.mergesAhead.take(gitDir, first, third)).toBeUndefined();
    expect(await repo.isAncestor(withFiles, third, undefined, true)).toBe(false);
    // unrelated histories: the tree started ahead says so, as merge-tree itself would
    expect(await caches.mergesAhead.take(gitDir, withFiles, third)).toEqual({ clean: false, tree: '', conflicts: [], unrelated: true });
  });

  it('when a merge commit is written, then UpdateRef will know both parents are its ancestors without reading it', async () => {
    const merged = await repo.writeMerge(third, withFiles, { squash: false, author: { name: 'a', email: 'a@b', timestamp: 1 }, committer: { name: 'a', email: 'a@b', timestamp: 1 }, message: 'm\n' }).catch(
      (e: unknown) => e,
    );
    // unrelated histories: nothing written, nothing cached
    expect(merged).toBeInstanceOf(AppError);
    const written = await repo.writeMerge(third, first, { squash: false, author: { name: 'a', email: 'a@b', timestamp: 1 }, committer: { name: 'a', email: 'a@b', timestamp: 1 }, message: 'm\n' });
    expect(git('rev-parse', `${written.commit}^1`, `${written.commit}^2`).split('\n')).toEqual([third, first]);
    expect(caches.ancestry.get(ReadCaches.key(gitDir, third, written.commit))).toBe(true);
    expect(caches.ancestry.get(ReadCaches.key(gitDir, first, written.commit))).toBe(true);
    const started = gitProcessesStarted();
    expect(await repo.isForced(third, written.commit)).toBe(false);
    expect(gitProcessesStarted()).toBe(started);
  });
});
