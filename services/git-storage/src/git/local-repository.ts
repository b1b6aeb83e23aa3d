import { AppError, conflict, notFound, validation } from '@githost/errors';
import { ReadCaches, type TreeListing } from '../cache/read-caches.js';
import type { CatfilePool } from './catfile-pool.js';
import { runGit } from './command.js';
import { compareCommits, ComparisonTooBigError, type CompareBudget, type Comparison } from './compare.js';
import { streamDiff, type DiffFileOut, type DiffLimits } from './diff.js';
import { COMMIT_CHANGES_LIMITS, listCommitChanges, type CommitChangesOut } from './commit-changes.js';
import { AmbiguousRevisionError, GitCancelledError, NotFoundError, RefLockedError, RefMismatchError } from './errors.js';
import { commitMerge, mergeTree, type MergeTreeResult, type Signature } from './merge.js';
import { walkAncestry } from './ancestry-walk.js';
import { walkLog } from './log-walk.js';
import { parseCommitObject } from '@githost/git-records';
import { findFile, readCommitObject, readCommitObjects, readCommitObjectsOrNull, readTreeListing, resolveCommitOid, withAnswer, type TreeReadOptions } from './objects.js';
import type { CachedRef, RefsCache } from './refs-cache.js';
import type { RefUpdaters } from './ref-updaters.js';
import { ZERO_OID } from '@githost/git-records/object-id';

/** What every repository shares: the cat-file and update-ref processes, the refs cache and the read caches. */
export interface RepositoryResources {
  pool: CatfilePool;
  refUpdates: RefUpdaters;
  refs: RefsCache;
  cache: ReadCaches;
}

export interface RawCommit {
  oid: string;
  raw: Buffer;
}

export interface BlobHeader {
  /** The blob's id, size in bytes, and its tree entry's mode as ls-tree prints it. */
  oid: string;
  size: number;
  mode: string;
  /** Where it was found, for the error should it vanish. */
  path: string;
}

/** Larger blobs stream on a process outside the repository's cap: a slow client may hold it long. */
const LONG_HOLD_BYTES = 1024 * 1024;

/** A lock held by housekeeping (pack-refs) or a push is brief: a locked ref is tried again after these waits. */
const LOCK_RETRY_MS = [25, 75, 200];

/**
 * One existing repository and the git operations on it (Gitaly's `localrepo`): the gRPC handlers
 * call these instead of running git. Arguments were validated by the caller (validate.ts); git's
 * failures are classified here, so a caller sees an AppError with the CONTRACT §4 message (not
 * found, conflict), a GitTimeoutError, or an unexpected GitError — never stderr to match.
 */
export class LocalRepository {
  constructor(
    readonly gitDir: string,
    private readonly resources: RepositoryResources,
  ) {}

  /** Refs under any of `prefixes`, sorted by name, from the refs cache. */
  async listRefs(prefixes: string[]): Promise<CachedRef[]> {
    const refs = await this.resources.refs.list(this.gitDir);
    return refs.filter((r) => prefixes.some((p) => r.name.startsWith(p)));
  }

  /** The value of a ref, or ZERO_OID when there is none. */
  async refValue(ref: string): Promise<string> {
    const { stdout, exitCode } = await runGit({ name: 'rev-parse', flags: ['--verify', '--quiet'], args: [ref] }, { gitDir: this.gitDir, okExitCodes: [1] });
    return exitCode === 0 ? stdout.toString('utf8').trim() : ZERO_OID;
  }

  /** The commit a full ref name or a hex id names. Refs come from the refs cache; ids (and annotated tags) are peeled by the cat-file pool. */
  async resolveRevision(revision: string): Promise<string> {
    if (revision.startsWith('refs/')) {
      const ref = await this.resources.refs.get(this.gitDir, revision);
      if (!ref) throw notFound(`Ref not found: ${revision}`);
      if (ref.type === 'commit') return ref.target;
      const oid = ref.type === 'tag' ? await resolveCommitOid(this.resources.pool, this.gitDir, ref.target) : null;
      if (!oid) throw notFound(`Ref not found: ${revision}`);
      return oid;
    }
    const oid = await resolveCommitOid(this.resources.pool, this.gitDir, revision);
    if (!oid) throw notFound(`Commit not found: ${revision}`);
    return oid;
  }

  async readCommit(revision: string): Promise<RawCommit> {
    const commit = await readCommitObject(this.resources.pool, this.gitDir, revision);
    if (!commit) throw notFound(`Commit not found: ${revision}`);
    return commit;
  }

  /**
   * A page of the log below `commit` (git log's default order): walked through the cat-file pool
   * (walkLog, whose reads are the page's objects), or ids from `rev-list` when the walk leaves it
   * to git, then objects from the pool. The ids below a commit id never change, so the page's ids
   * are cached and callers asking for it at once share one load. `not`, a full commit id, leaves
   * its history out (Gitea's `not`, docs/decisions/gitea-api.md#not).
   */
  async listCommits(commit: string, limit: number, offset: number, signal?: AbortSignal, path = '', not = ''): Promise<RawCommit[]> {
    let walked: RawCommit[] | undefined;
    const load = async () => {
      // The walk knows no paths and no exclusions: such a log is git's (its history
      // simplification, as `git log <commit> ^<not> -- path`).
      if (path !== '' || not !== '') return this.revList(commit, limit, offset, signal, path, not);
      walked = await walkLog(this.resources.pool, this.gitDir, commit, limit, offset, signal);
      return walked ? walked.map((c) => c.oid) : this.revList(commit, limit, offset, signal);
    };
    const page = () => this.resources.cache.logs.fetch(ReadCaches.key(this.gitDir, commit, limit, offset, path, not), load);
    let oids: string[];
    try {
      oids = await page().catch((err: unknown) => {
        // The shared load this call joined was cancelled by the caller that started it: ask again.
        if (err instanceof GitCancelledError && !signal?.aborted) return page();
        throw err;
      });
    } catch (err) {
      throw logNotFound(err, commit, not);
    }
    return walked ?? readCommitObjects(this.resources.pool, this.gitDir, oids);
  }

  /**
   * How many commits `listCommits` would list from `commit` over all its pages (`git rev-list
   * --count`, a walk of the commit-graph housekeeping writes); the caller keeps it by commit id,
   * since a commit's history never changes (docs/decisions/gitea-api.md#commits); `path` and
   * `not` as there.
   */
  async countCommits(commit: string, signal?: AbortSignal, path = '', not = ''): Promise<number> {
    try {
      return Number((await this.revListLog(['--count'], commit, signal, path, not)).trim());
    } catch (err) {
      throw logNotFound(err, commit, not);
    }
  }

  /**
   * Each commit's changed files and line counts, from one git process for all of them
   * (commit-changes.ts; docs/decisions/gitea-api.md#stats-and-files). The ids must be full commit
   * ids; one that is not a commit of this repository fails the call (not_found).
   */
  listCommitChanges(oids: string[], signal?: AbortSignal): Promise<CommitChangesOut[]> {
    return listCommitChanges(this.gitDir, oids, COMMIT_CHANGES_LIMITS, signal);
  }

  /**
   * The commit a checked revision expression names (validate.ts validateCommitExpression;
   * docs/decisions/gitea-api.md#revision-expressions): `git rev-parse --verify` after
   * `--end-of-options`, peeled to a commit. An ambiguous abbreviated id is a validation error.
   */
  async resolveCommitExpression(expression: string): Promise<string> {
    try {
      const { stdout } = await runGit({ name: 'rev-parse', flags: ['--verify'], args: [`${expression}^{commit}`] }, { gitDir: this.gitDir, timeoutMs: 30_000 });
      return stdout.toString('latin1').trim();
    } catch (err) {
      if (err instanceof AmbiguousRevisionError) throw validation(`Ambiguous revision: ${expression}`);
      if (err instanceof NotFoundError) throw notFound(`Revision not found: ${expression}`);
      throw err;
    }
  }

  private async revList(commit: string, limit: number, offset: number, signal?: AbortSignal, path = '', not = ''): Promise<string[]> {
    return (await this.revListLog([`--max-count=${limit}`, `--skip=${offset}`], commit, signal, path, not)).split('\n').filter(Boolean);
  }

  /** `git rev-list <flags> <commit> [^<not>] [-- <path>]`: the one walk of a log, its output as text. */
  private async revListLog(flags: string[], commit: string, signal: AbortSignal | undefined, path: string, not: string): Promise<string> {
    const paths = path === '' ? {} : { paths: [path] };
    // A path is taken literally: `:(glob)`, `:!` and other pathspec magic mean nothing here.
    const env = path === '' ? {} : { env: { GIT_LITERAL_PATHSPECS: '1' } };
    const { stdout } = await runGit({ name: 'rev-list', flags, args: revisionsOf(commit, not), ...paths }, { gitDir: this.gitDir, timeoutMs: 30_000, signal, ...env });
    return stdout.toString('latin1');
  }

  /** The tree at `path` under a commit, in ls-tree --long -z format (whole listings cached by tree id; objects.ts TreeReadOptions). */
  readTree(commit: string, path: string, opts: TreeReadOptions = {}): Promise<TreeListing> {
    return readTreeListing(this.resources.pool, this.resources.cache, this.gitDir, commit, path, opts);
  }

  /**
   * The blob at `path` under a commit: its id, size and mode; a directory or submodule is refused.
   * `requireCommit` as for readTree; a blob of at most `inlineUpTo` bytes comes with its content,
   * read in the same hold of one cat-file process (objects.ts findFile).
   */
  findBlob(commit: string, path: string, requireCommit = false, inlineUpTo = 0): Promise<BlobHeader & { data?: Buffer }> {
    return withAnswer(this.resources.pool, this.gitDir, async (p) => {
      const file = await findFile(p, this.resources.cache, commit, path, requireCommit, inlineUpTo);
      return { oid: file.oid, size: file.size, mode: file.mode, path, data: file.data };
    });
  }

  /**
   * A blob's bytes in chunks of at most `chunkBytes`, straight from a cat-file process taken for
   * this read (beyond the repository's process cap when the blob is large, so a few slow
   * downloads cannot stall every other read), so a 200 MB blob never sits in memory. Stopping
   * early leaves the process half-read, so it is killed instead of reused.
   */
  async *readBlob(blob: BlobHeader, chunkBytes: number): AsyncGenerator<Buffer, void, undefined> {
    const { pool } = this.resources;
    const p = await pool.acquire(this.gitDir, { beyondRepositoryCap: blob.size > LONG_HOLD_BYTES });
    let clean = false;
    try {
      p.send([['contents', blob.oid]]);
      const h = await p.readHeader();
      if (!h) throw notFound(`Path not found: ${blob.path}`);
      yield* p.streamBody(h.size, chunkBytes);
      clean = true;
    } catch (err) {
      // A refusal (not found) is thrown only after its answer was read whole.
      clean = err instanceof AppError;
      throw err;
    } finally {
      pool.release(p, clean);
    }
  }

  /**
   * `prepareMerge`: a "no" leads to a merge of `descendant` into `ancestor`, so on a "no", or
   * alongside git when only git can answer, the merge's tree is started (MergeTreesAhead).
   */
  async isAncestor(ancestor: string, descendant: string, signal?: AbortSignal, prepareMerge = false): Promise<boolean> {
    const unlessAncestor = prepareMerge ? () => this.resources.cache.mergesAhead.start(this.gitDir, ancestor, descendant) : undefined;
    try {
      return await this.ancestry(ancestor, descendant, signal, unlessAncestor);
    } catch (err) {
      if (err instanceof NotFoundError) throw notFound('Commit not found');
      throw err;
    }
  }

  /**
   * Whether `ancestor` is reachable from `descendant`, as `merge-base --is-ancestor` says. The
   * answer never changes for two ids, so it is cached (a merge asks IsAncestor, then its UpdateRef
   * asks the same pair); a direct parent is read from the commit through the cat-file pool (a merge
   * commit's first parent is the target it moves from), then a short walk of both histories
   * through the pool answers most other pairs (walkAncestry), and only then is git started.
   */
  private ancestry(ancestor: string, descendant: string, signal?: AbortSignal, unlessAncestor?: () => void): Promise<boolean> {
    return this.resources.cache.ancestry.fetch(ReadCaches.key(this.gitDir, ancestor, descendant), async () => {
      const [commit = null, other = null] = await readCommitObjectsOrNull(this.resources.pool, this.gitDir, [descendant, ancestor]).catch(() => []);
      if (commit && parseCommitObject(commit.raw).parents.includes(ancestor)) return true;
      const walked = commit && other ? await walkAncestry(this.resources.pool, this.gitDir, other, commit) : undefined;
      if (walked === true) return true;
      unlessAncestor?.();
      if (walked === false) return false;
      // Exit 1 is the answer "no", not a failure.
      const { exitCode } = await runGit({ name: 'merge-base', flags: ['--is-ancestor'], args: [ancestor, descendant] }, { gitDir: this.gitDir, okExitCodes: [1], signal });
      return exitCode === 0;
    });
  }

  /** The best common ancestor; '' for unrelated histories. */
  async mergeBase(left: string, right: string, signal?: AbortSignal): Promise<string> {
    try {
      // Exit 1 with no output: unrelated histories.
      const { stdout } = await runGit({ name: 'merge-base', args: [left, right] }, { gitDir: this.gitDir, okExitCodes: [1], signal });
      return stdout.toString('utf8').trim();
    } catch (err) {
      if (err instanceof NotFoundError) throw notFound('Commit not found');
      throw err;
    }
  }

  /** Three-dot compare: merge base, ahead/behind counts and head's first `maxCommits` commits, oldest first, within `budget`. */
  async compare(base: string, head: string, maxCommits: number, budget: CompareBudget, signal?: AbortSignal): Promise<Omit<Comparison, 'commitOids'> & { commits: RawCommit[] }> {
    let result: Comparison;
    try {
      result = await compareCommits(this.gitDir, base, head, maxCommits, budget, signal);
    } catch (err) {
      if (err instanceof NotFoundError) throw notFound('Commit not found');
      // The caller's choice of commits, not the service's trouble: a 4xx (docs/decisions/compare.md#budget).
      if (err instanceof ComparisonTooBigError) throw validation(err.message);
      throw err;
    }
    const { commitOids, ...counts } = result;
    return { ...counts, commits: await readCommitObjects(this.resources.pool, this.gitDir, commitOids) };
  }

  /** The three-way merge of two commits, written as a tree only (CONTRACT §6). */
  checkMerge(ours: string, theirs: string, signal?: AbortSignal): Promise<MergeTreeResult> {
    return mergeTree(this.gitDir, ours, theirs, signal);
  }

  /**
   * Writes the merge commit (parents ours, theirs) or the squash commit (ours alone: the merged
   * tree without the source's history, docs/decisions/merge-options.md). A conflict writes nothing.
   */
  async writeMerge(
    ours: string,
    theirs: string,
    commit: { squash: boolean; author: Signature | null | undefined; committer: Signature | null | undefined; message: string },
    signal?: AbortSignal,
  ): Promise<{ commit: string; tree: string }> {
    const r = (await this.resources.cache.mergesAhead.take(this.gitDir, ours, theirs)) ?? (await mergeTree(this.gitDir, ours, theirs, signal));
    if (r.unrelated) throw conflict('Refusing to merge unrelated histories', { conflicts: [] });
    // CONTRACT §6: a conflicting merge is refused with the paths, and nothing is written.
    if (!r.clean) throw conflict('Merge conflict', { conflicts: r.conflicts });
    const parents = commit.squash ? [ours] : [ours, theirs];
    const written = await commitMerge(this.gitDir, r.tree, parents, commit.author, commit.committer, commit.message);
    // Its parents are ancestors by construction: the UpdateRef that moves the target to it asks.
    for (const parent of parents) this.resources.cache.ancestry.set(ReadCaches.key(this.gitDir, parent, written), true);
    return { commit: written, tree: r.tree };
  }

  /** The changed files between two commits, one at a time (CONTRACT §5 limits); returning early kills git. */
  diff(from: string, to: string, limits: DiffLimits): AsyncGenerator<DiffFileOut, { truncated: boolean }> {
    return streamDiff(this.gitDir, from, to, limits);
  }

  /**
   * Whether moving a ref from `before` to `after` rewrites history: both ids set and `before` not
   * an ancestor of `after`. An id git cannot read is left to the compare-and-swap to refuse (not
   * found, or changed), so it counts as not forced.
   */
  async isForced(before: string, after: string, signal?: AbortSignal): Promise<boolean> {
    if (before === ZERO_OID || after === ZERO_OID) return false;
    try {
      return !(await this.ancestry(before, after, signal));
    } catch (err) {
      if (err instanceof NotFoundError) return false;
      throw err;
    }
  }

  /**
   * Compare-and-swap: moves `ref` from `oldOid` to `newOid` (ZERO_OID: create, or delete). A ref
   * that moved meanwhile is a conflict at once; a locked one is tried again a few times first.
   */
  async updateRef(ref: string, newOid: string, oldOid: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.resources.refUpdates.update(this.gitDir, ref, newOid, oldOid);
        return;
      } catch (err) {
        const wait = LOCK_RETRY_MS[attempt];
        if (err instanceof RefLockedError && wait !== undefined) {
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
        if (err instanceof RefMismatchError) throw conflict(`Ref changed: ${ref} is no longer at ${oldOid}`);
        if (err instanceof RefLockedError) throw conflict(`Ref changed: ${ref} is being updated`);
        if (err instanceof NotFoundError) throw notFound(`Commit not found: ${newOid}`);
        throw err;
      }
    }
  }

  /**
   * HEAD becomes a symbolic ref to refs/heads/<branch>, which need not exist yet. The refs cache
   * holds no HEAD (for-each-ref lists none), so it stays: dropping it cost a refill of every ref
   * (0.5-1.5 s at 110,000 refs) for a change that moves none.
   */
  async setDefaultBranch(branch: string): Promise<void> {
    await runGit({ name: 'symbolic-ref', args: ['HEAD', `refs/heads/${branch}`] }, { gitDir: this.gitDir });
  }
}

/**
 * The revisions of a log below `commit` without `not`'s history: both full commit ids checked by
 * the caller (validateOid), after `--end-of-options`, so neither can be read as an option.
 */
function revisionsOf(commit: string, not: string): string[] {
  return not === '' ? [commit] : [commit, `^${not}`];
}

/**
 * A log's failure as the caller sees it: git not finding one of its two commits is a 404 naming
 * the one it refused (its error names the revision); anything else as it was.
 */
function logNotFound(err: unknown, commit: string, not: string): unknown {
  if (!(err instanceof NotFoundError)) return err;
  const missing = not !== '' && err.stderr.includes(not) && !err.stderr.includes(commit) ? not : commit;
  return notFound(`Commit not found: ${missing}`);
}
