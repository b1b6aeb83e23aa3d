import type { Diff, DiffEntry, DiffLimits } from '@githost/git-records';
import type { RawRef } from './refs.js';

/** Which repository a read is for, and the request id to carry along for tracing. */
export interface ReadContext {
  repoId: string;
  /** git-storage shard holding the repository (from its record, via the signed identity). */
  shard: string;
  requestId?: string;
}

export interface RawCommit {
  oid: string;
  raw: Uint8Array;
}

export interface BlobStream {
  oid: string;
  size: number;
  mode: string;
  /** The blob exceeded the requested maximum; `chunks` yields nothing. */
  tooLarge: boolean;
  chunks: AsyncIterable<Buffer>;
  /** Stops the transfer early (the client went away). */
  cancel(): void;
}

/**
 * A directory's `git ls-tree --long -z` records as git-storage streams them (ReadTreeStream), in
 * pieces of whole records; the first piece has arrived, so a refusal came before it.
 */
export interface TreeStream {
  treeOid: string;
  /** Entries of the whole directory: when `first` holds them all, `rest` yields nothing. */
  count: number;
  first: Uint8Array;
  /** The pieces after the first, in order. */
  rest: AsyncIterable<Uint8Array>;
  /** Stops the transfer early (the client went away, or the listing was not needed). */
  cancel(): void;
}

/** A Git LFS object's content as git-storage streams it. */
export interface LfsObjectStream {
  size: number;
  chunks: AsyncIterable<Buffer>;
  /** Stops the transfer early (the client went away). */
  cancel(): void;
}

/** CONTRACT §5 diff: one definition, shared with the client that builds it. */
export type { Diff, DiffEntry, DiffLimits };


/** A three-dot compare as git-storage computes it. */
export interface Comparison {
  /** Empty when the histories are unrelated. */
  mergeBase: string;
  aheadBy: number;
  behindBy: number;
  /** Head's commits not in base, oldest first, at most the number asked for. */
  commits: RawCommit[];
}

/** What one commit changed (git-storage ListCommitChanges; docs/decisions/gitea-api.md#stats-and-files). */
export interface CommitChanges {
  oid: string;
  additions: number;
  deletions: number;
  files: Array<{ path: string; status: string }>;
  filesTruncated: boolean;
}

/**
 * The ref-change watch (@githost/refs-watch): a token that changes whenever a repository's refs
 * may have changed, undefined while the watch of that shard is not live.
 */
export interface RefVersions {
  version(shard: string, repositoryId: string): string | undefined;
  /**
   * Runs `listener` on every ref change before it is acked; `moved`, when the change named every
   * ref it touched with its new value (a deleted ref: an empty target), the versions before and
   * after it. Returns an unsubscribe.
   */
  onChange?(listener: (shard: string, repositoryId: string | undefined, moved?: RefsMoved) => void): () => void;
}

/** A ref change named whole: refs as of version `before` become, with `refs` applied, those of `after`. */
export interface RefsMoved {
  before: string;
  after: string;
  refs: readonly RawRef[];
}

/**
 * What browsing needs from git-storage. Failures come back as AppErrors: `not_found` for a
 * missing ref, revision or path, `validation` for input git-storage refuses, `unavailable`.
 */
export interface RepositoryReader {
  /** Refs whose full names start with one of `prefixes`, sorted by name. */
  listRefs(ctx: ReadContext, prefixes: readonly string[]): Promise<RawRef[]>;
  /** A full 40-hex id to the commit it names (annotated tags peeled). */
  resolveCommit(ctx: ReadContext, oid: string): Promise<string>;
  /**
   * `git ls-tree --long -z` bytes of the directory at `path` (empty for the root), and how many
   * entries it has. With `requireCommit`, `commit` must name a commit itself (not a tag or a tree)
   * or the read is `not_found`: the read also confirms the id. With `limit` > 0 the entries may be
   * only the first `limit` (a git-storage from before storage.proto ReadTreeRequest.limit sends
   * them all); `count` is the whole directory's either way.
   */
  readTree(ctx: ReadContext, commit: string, path: string, opts?: { requireCommit?: boolean; limit?: number }): Promise<{ treeOid: string; entries: Uint8Array; count: number }>;
  /** The same records in pieces as they arrive (docs/decisions/big-pages.md#the-whole-tree-streamed); `requireCommit` as for readTree. */
  openTree(ctx: ReadContext, commit: string, path: string, requireCommit?: boolean): Promise<TreeStream>;
  /** The file at `path`; with `maxBytes` > 0 a larger blob comes back `tooLarge` and without data. `requireCommit` as for readTree. */
  openBlob(ctx: ReadContext, commit: string, path: string, maxBytes: number, requireCommit?: boolean): Promise<BlobStream>;
  /** The Git LFS object `oid` this repository holds, or undefined when it holds none (docs/decisions/lfs.md#display). */
  openLfsObject(ctx: ReadContext, oid: string): Promise<LfsObjectStream | undefined>;
  /** Full or abbreviated hex id. */
  readCommit(ctx: ReadContext, revision: string): Promise<RawCommit>;
  /**
   * Commits reachable from `commit` in `git log` default order; only those touching `path` when
   * given; none reachable from `not` (a full commit id) when given.
   */
  listCommits(ctx: ReadContext, commit: string, limit: number, offset: number, path?: string, not?: string): Promise<RawCommit[]>;
  /** How many commits listCommits lists from `commit` over all its pages (`path`, `not` as there); undefined from a git-storage without CountCommits. */
  countCommits(ctx: ReadContext, commit: string, path?: string, not?: string): Promise<number | undefined>;
  /**
   * Each commit's changes against its first parent, in the order asked; a commit git-storage left
   * out (its budget of files ran out) is missing. Undefined from a git-storage without ListCommitChanges.
   */
  listCommitChanges(ctx: ReadContext, oids: readonly string[]): Promise<CommitChanges[] | undefined>;
  /**
   * The commit a revision expression names: a full commit id, a fully qualified ref or 4 to 39
   * hex digits followed by ancestry steps (`~N`, `^N`, `^{}`, `^{commit}`). `validation` for an
   * ambiguous or malformed one, `not_found` when it names no commit.
   */
  resolveCommitExpression(ctx: ReadContext, expression: string): Promise<string>;
  /** Merge base, ahead/behind counts and head's own commits (both sides full commit ids). */
  compare(ctx: ReadContext, base: string, head: string, maxCommits: number): Promise<Comparison>;
  /** Changes from `from` to `to` (full commit ids) within `limits`. */
  diff(ctx: ReadContext, from: string, to: string, limits: DiffLimits): Promise<Diff>;
}
