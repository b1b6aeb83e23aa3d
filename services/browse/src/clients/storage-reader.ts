import { callOptions, callUnary, fromServiceError, metadataFor, type GrpcMetrics } from '@githost/grpc';
import { AppError, notFound, unavailable } from '@githost/errors';
import type { storage } from '@githost/protos';
import type { StorageRouter } from '@githost/storage-router';
import type { BlobStream, CommitChanges, TreeStream, Comparison, LfsObjectStream, Diff, DiffLimits, RawCommit, ReadContext, RepositoryReader } from '../domain/ports.js';
import type { RawRef } from '../domain/refs.js';
import { readDiff } from '@githost/git-records';

/** Unary reads are small; a slow one means git-storage is in trouble, not that the repo is big. */
const UNARY_TIMEOUT_MS = 15_000;
/** Compare and diff walk history and trees: bounded by size, not constant (the merge-request detail's deadline). */
const HISTORY_TIMEOUT_MS = 30_000;
/** gRPC status UNIMPLEMENTED: a peer older than the method. */
const UNIMPLEMENTED = 12;

/** RepositoryReader over git-storage's gRPC API: the only way browse touches a repository,
 *  always on the shard the repository's record names. */
export class StorageReader implements RepositoryReader {
  constructor(
    private readonly router: StorageRouter,
    private readonly metrics?: GrpcMetrics,
  ) {}

  private opts(ctx: ReadContext) {
    return { requestId: ctx.requestId, timeoutMs: UNARY_TIMEOUT_MS, metrics: this.metrics };
  }

  async listRefs(ctx: ReadContext, prefixes: readonly string[]): Promise<RawRef[]> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ListRefsRequest, storage.ListRefsResponse__Output>(
      client,
      client.ListRefs,
      { repository_id: ctx.repoId, prefixes: [...prefixes] },
      this.opts(ctx),
    );
    return res.refs;
  }

  async resolveCommit(ctx: ReadContext, oid: string): Promise<string> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ResolveRevisionRequest, storage.ResolveRevisionResponse__Output>(
      client,
      client.ResolveRevision,
      { repository_id: ctx.repoId, revision: oid },
      this.opts(ctx),
    );
    return res.oid;
  }

  async readTree(ctx: ReadContext, commit: string, path: string, opts: { requireCommit?: boolean; limit?: number } = {}): Promise<{ treeOid: string; entries: Uint8Array; count: number }> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ReadTreeRequest, storage.ReadTreeResponse__Output>(
      client,
      client.ReadTree,
      { repository_id: ctx.repoId, commit_oid: commit, path, require_commit: opts.requireCommit === true, limit: opts.limit ?? 0 },
      this.opts(ctx),
    );
    return { treeOid: res.tree_oid, entries: res.entries, count: res.count };
  }

  async openTree(ctx: ReadContext, commit: string, path: string, requireCommit = false): Promise<TreeStream> {
    const client = this.router.client(ctx.shard);
    const request = { repository_id: ctx.repoId, commit_oid: commit, path, require_commit: requireCommit };
    // No deadline, as for openBlob: a big directory goes as fast as its client takes it; cancel() ends it.
    const call = client.ReadTreeStream(request, metadataFor(ctx.requestId), callOptions({ metrics: this.metrics }));
    const messages = call[Symbol.asyncIterator]() as AsyncIterator<storage.ReadTreeStreamResponse__Output>;
    let first: IteratorResult<storage.ReadTreeStreamResponse__Output>;
    try {
      first = await messages.next();
    } catch (err) {
      const error = fromServiceError(err);
      if (!(error instanceof AppError && (error.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED)) throw error;
      // A git-storage from before ReadTreeStream (during a rolling upgrade): the whole listing at once.
      const res = await callUnary<storage.ReadTreeRequest, storage.ReadTreeResponse__Output>(client, client.ReadTree, request, this.opts(ctx));
      return { treeOid: res.tree_oid, count: res.count, first: res.entries, rest: nothing(), cancel: () => undefined };
    }
    // git-storage always sends one message (an empty tree's is empty): none means it went away.
    if (first.done) throw unavailable('git-storage ended a tree read without an answer');
    return { treeOid: first.value.tree_oid, count: first.value.count, first: first.value.entries, rest: restOf(messages, (m) => m.entries), cancel: () => call.cancel() };
  }

  async readCommit(ctx: ReadContext, revision: string): Promise<RawCommit> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ReadCommitRequest, storage.ReadCommitResponse__Output>(
      client,
      client.ReadCommit,
      { repository_id: ctx.repoId, revision },
      this.opts(ctx),
    );
    if (!res.commit) throw notFound(`Commit not found: ${revision}`);
    return { oid: res.commit.oid, raw: res.commit.raw };
  }

  async listCommits(ctx: ReadContext, commit: string, limit: number, offset: number, path = '', not = ''): Promise<RawCommit[]> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ListCommitsRequest, storage.ListCommitsResponse__Output>(
      client,
      client.ListCommits,
      { repository_id: ctx.repoId, commit_oid: commit, limit, offset, path, not_oid: not },
      this.opts(ctx),
    );
    return res.commits.map((c) => ({ oid: c.oid, raw: c.raw }));
  }

  async countCommits(ctx: ReadContext, commit: string, path = '', not = ''): Promise<number | undefined> {
    const client = this.router.client(ctx.shard);
    try {
      const res = await callUnary<storage.CountCommitsRequest, storage.CountCommitsResponse__Output>(
        client,
        client.CountCommits,
        { repository_id: ctx.repoId, commit_oid: commit, path, not_oid: not },
        { ...this.opts(ctx), timeoutMs: HISTORY_TIMEOUT_MS },
      );
      return Number(res.count);
    } catch (err) {
      // A git-storage from before CountCommits (during a rolling upgrade): no count.
      if (err instanceof AppError && (err.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED) return undefined;
      throw err;
    }
  }

  async listCommitChanges(ctx: ReadContext, oids: readonly string[]): Promise<CommitChanges[] | undefined> {
    const client = this.router.client(ctx.shard);
    try {
      const res = await callUnary<storage.ListCommitChangesRequest, storage.ListCommitChangesResponse__Output>(
        client,
        client.ListCommitChanges,
        { repository_id: ctx.repoId, commit_oids: [...oids] },
        { ...this.opts(ctx), timeoutMs: HISTORY_TIMEOUT_MS },
      );
      return res.commits.map((c) => ({ oid: c.oid, additions: Number(c.additions), deletions: Number(c.deletions), files: c.files.map((f) => ({ path: f.path, status: f.status })), filesTruncated: c.files_truncated }));
    } catch (err) {
      // A git-storage from before ListCommitChanges (during a rolling upgrade): no changes.
      if (err instanceof AppError && (err.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED) return undefined;
      throw err;
    }
  }

  async resolveCommitExpression(ctx: ReadContext, expression: string): Promise<string> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.ResolveCommitExpressionRequest, storage.ResolveCommitExpressionResponse__Output>(
      client,
      client.ResolveCommitExpression,
      { repository_id: ctx.repoId, expression },
      { ...this.opts(ctx), timeoutMs: HISTORY_TIMEOUT_MS },
    );
    return res.oid;
  }

  async compare(ctx: ReadContext, base: string, head: string, maxCommits: number): Promise<Comparison> {
    const client = this.router.client(ctx.shard);
    const res = await callUnary<storage.CompareRequest, storage.CompareResponse__Output>(
      client,
      client.Compare,
      { repository_id: ctx.repoId, base_oid: base, head_oid: head, max_commits: maxCommits },
      { ...this.opts(ctx), timeoutMs: HISTORY_TIMEOUT_MS },
    );
    return { mergeBase: res.merge_base, aheadBy: res.ahead_by, behindBy: res.behind_by, commits: res.commits.map((c) => ({ oid: c.oid, raw: c.raw })) };
  }

  diff(ctx: ReadContext, from: string, to: string, limits: DiffLimits): Promise<Diff> {
    return readDiff(this.router.client(ctx.shard), ctx.repoId, from, to, limits, { requestId: ctx.requestId, timeoutMs: HISTORY_TIMEOUT_MS, metrics: this.metrics });
  }

  async openBlob(ctx: ReadContext, commit: string, path: string, maxBytes: number, requireCommit = false): Promise<BlobStream> {
    const client = this.router.client(ctx.shard);
    // No deadline: raw streams blobs of any size to clients of any speed; cancel() ends it.
    const call = client.ReadBlob({ repository_id: ctx.repoId, commit_oid: commit, path, max_bytes: maxBytes, require_commit: requireCommit }, metadataFor(ctx.requestId), callOptions({ metrics: this.metrics }));
    const messages = call[Symbol.asyncIterator]() as AsyncIterator<storage.ReadBlobResponse__Output>;
    let first: IteratorResult<storage.ReadBlobResponse__Output>;
    try {
      first = await messages.next();
    } catch (err) {
      throw fromServiceError(err);
    }
    if (first.done) throw notFound(`Path not found: ${path}`);
    const header = first.value;
    async function* chunks(): AsyncGenerator<Buffer> {
      if (header.data.length > 0) yield header.data;
      yield* restOf(messages, (m) => m.data);
    }
    return { oid: header.oid, size: header.size, mode: header.mode, tooLarge: header.too_large, chunks: chunks(), cancel: () => call.cancel() };
  }

  async openLfsObject(ctx: ReadContext, oid: string): Promise<LfsObjectStream | undefined> {
    const client = this.router.client(ctx.shard);
    // No deadline, as for openBlob: an object of any size to a client of any speed.
    const call = client.ReadLfsObject({ repository_id: ctx.repoId, oid }, metadataFor(ctx.requestId), callOptions({ metrics: this.metrics }));
    const messages = call[Symbol.asyncIterator]() as AsyncIterator<storage.ReadLfsObjectResponse__Output>;
    let first: IteratorResult<storage.ReadLfsObjectResponse__Output>;
    try {
      first = await messages.next();
    } catch (err) {
      const error = fromServiceError(err);
      if (error instanceof AppError && error.kind === 'not_found') return undefined;
      throw error;
    }
    if (first.done) return undefined;
    const size = first.value.size;
    return { size, chunks: restOf(messages, (m) => m.data), cancel: () => call.cancel() };
  }
}

/** No pieces after the first (a whole listing from ReadTree). */
async function* nothing(): AsyncGenerator<Uint8Array> {
  yield* [];
}

/** The bytes of a read stream's messages after the first (ReadBlob's and ReadLfsObject's `data`,
 *  ReadTreeStream's `entries`), empty ones left out, its gRPC errors mapped as every read maps them. */
async function* restOf<M, B extends Uint8Array>(messages: AsyncIterator<M>, bytesOf: (m: M) => B): AsyncGenerator<B> {
  try {
    for (;;) {
      const next = await messages.next();
      if (next.done) return;
      const bytes = bytesOf(next.value);
      if (bytes.length > 0) yield bytes;
    }
  } catch (err) {
    throw fromServiceError(err);
  }
}
