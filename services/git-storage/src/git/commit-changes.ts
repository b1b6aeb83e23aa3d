import type { Readable } from 'node:stream';
import { isFullOid } from '@githost/git-records/object-id';
import { notFound } from '@githost/errors';
import { ByteReader } from './byte-reader.js';
import { spawnGitStream } from './command.js';
import { DIFF_TREE_CONTENT_FLAGS } from './diff.js';
import { classifyGitFailure, GitError, NotFoundError } from './errors.js';

/** What one commit changed, as Gitea's commit list shows it (storage.proto CommitChanges). */
export interface CommitChangesOut {
  oid: string;
  additions: number;
  deletions: number;
  files: Array<{ path: string; status: ChangedFileStatus }>;
  files_truncated: boolean;
}

export type ChangedFileStatus = 'added' | 'removed' | 'modified';

export interface CommitChangesLimits {
  /** Files listed per commit (GitHub's cap on a commit's files: 300). */
  maxFilesPerCommit: number;
  /** Changed files read over the whole call before git is stopped and the rest left out. */
  maxFilesPerCall: number;
  timeoutMs: number;
}

/** docs/decisions/gitea-api.md#stats-and-files: the bounds, written down there. */
export const COMMIT_CHANGES_LIMITS: CommitChangesLimits = { maxFilesPerCommit: 300, maxFilesPerCall: 20_000, timeoutMs: 30_000 };

/**
 * Each commit's changes from ONE `git diff-tree --stdin` for all of them
 * (docs/decisions/gitea-api.md#stats-and-files): `--numstat` against the first parent (a root
 * commit against the empty tree, `--root`; binary files count no lines, as `git diff --shortstat`
 * Gitea sums), and `--raw` for the file list, which for a merge (`-c`) names only the files that
 * differ from every parent, as Gitea's `git log -c --name-status` does; with `-c`, git prints a
 * merge's numstat against its first parent. Renames are detected for the line counts (as the
 * compare's diff does) and listed as a removal and an addition (Gitea's `--no-renames`).
 * `--always` prints every commit's id, changed or not. Once `maxFilesPerCall` changed files were
 * read, git is killed and the commits not finished are left out of the answer.
 */
export async function listCommitChanges(gitDir: string, oids: string[], limits: CommitChangesLimits, signal?: AbortSignal): Promise<CommitChangesOut[]> {
  const child = await spawnGitStream(
    { name: 'diff-tree', flags: ['--stdin', '--always', '--root', '-r', '-c', '-M', '--raw', '--numstat', '-z', ...DIFF_TREE_CONTENT_FLAGS] },
    { gitDir, timeoutMs: limits.timeoutMs, signal },
  );
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 8192) stderr += b.toString('utf8');
  });
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(oids.map((o) => `${o}\n`).join(''));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const reader = new ByteReader(child.stdout as Readable);
  const done: CommitChangesOut[] = [];
  let current: Building | undefined;
  let seen = 0;
  let stopped = false;
  try {
    for (;;) {
      const record = await reader.readUntil(0);
      if (record === null) break;
      const text = record.toString('utf8');
      if (text.startsWith(':')) {
        if (!current) throw new GitError(`diff-tree: a change before any commit id`);
        if (++seen > limits.maxFilesPerCall) {
          stopped = true;
          break;
        }
        addRaw(current, text, await readPaths(reader, text));
      } else if (/^(\d+|-)\t(\d+|-)\t/.test(text)) {
        if (!current) throw new GitError(`diff-tree: a numstat before any commit id`);
        const [added, deleted, path] = text.split('\t', 3) as [string, string, string];
        // A rename's numstat has an empty path followed by the two paths.
        if (path === '') await readPaths(reader, 'R');
        // Binary: `-` for both counts, which count nothing (git diff --shortstat does the same).
        if (added !== '-') current.additions += Number(added);
        if (deleted !== '-') current.deletions += Number(deleted);
      } else if (isFullOid(text)) {
        if (current) done.push(finish(current, limits.maxFilesPerCommit));
        current = { oid: text, additions: 0, deletions: 0, added: [], removed: [], modified: [] };
      } else {
        throw new GitError(`diff-tree: unexpected record ${JSON.stringify(record.toString("utf8").slice(0, 80))}`);
      }
    }
    if (stopped) return done;
    const code = await exit;
    if (code !== 0) {
      const err = classifyGitFailure('diff-tree', stderr, code);
      throw err instanceof NotFoundError || /bad object|not a valid|unable to read/i.test(stderr) ? notFound('Commit not found') : err;
    }
    if (current) done.push(finish(current, limits.maxFilesPerCommit));
    // diff-tree --stdin passes over a line naming no commit without failing.
    if (done.length !== oids.length) throw notFound('Commit not found');
    return done;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

interface Building {
  oid: string;
  additions: number;
  deletions: number;
  added: string[];
  removed: string[];
  modified: string[];
}

/** A raw record's paths: two after a rename or copy of a plain diff, else one (a combined diff prints one). */
async function readPaths(reader: ByteReader, header: string): Promise<string[]> {
  const status = header.startsWith('::') ? '' : header.slice(header.lastIndexOf(' ') + 1);
  const first = (await reader.readUntil(0))?.toString('utf8') ?? '';
  if (header === 'R' || status.startsWith('R') || status.startsWith('C')) return [first, (await reader.readUntil(0))?.toString('utf8') ?? ''];
  return [first];
}

function addRaw(c: Building, header: string, paths: string[]): void {
  // The status is the last field; a combined diff has one letter per parent, Gitea reads the first.
  const letter = header.slice(header.lastIndexOf(' ') + 1).charAt(0);
  const path = paths[paths.length - 1]!;
  if (letter === 'A') c.added.push(path);
  else if (letter === 'D') c.removed.push(path);
  else if (letter === 'M') c.modified.push(path);
  else if (letter === 'R' && !header.startsWith('::')) {
    c.removed.push(paths[0]!);
    c.added.push(path);
  } else if (letter === 'R') c.modified.push(path);
  // 'T' (a type change) and anything else: Gitea's list leaves it out.
}

function finish(c: Building, cap: number): CommitChangesOut {
  const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const all = [
    ...c.added.sort(byPath).map((path) => ({ path, status: 'added' as const })),
    ...c.removed.sort(byPath).map((path) => ({ path, status: 'removed' as const })),
    ...c.modified.sort(byPath).map((path) => ({ path, status: 'modified' as const })),
  ];
  return { oid: c.oid, additions: c.additions, deletions: c.deletions, files: all.slice(0, cap), files_truncated: all.length > cap };
}
