import { AppError } from '@githost/errors';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { StorageServiceClient, storage } from '@githost/protos';
import type { StorageRouter } from '@githost/storage-router';
import type { DiffLimits, GitPort, MergeTips, UpdateRefInput, WriteMergeInput } from '../domain/ports.js';
import type { Comparison, Diff } from '../domain/types.js';
import { parseCommit, readDiff, ZERO_OID } from '@githost/git-records';

const TIMEOUT_MS = 30_000;
/** gRPC status UNIMPLEMENTED. */
const UNIMPLEMENTED = 12;
const BRANCH_PREFIX = 'refs/heads/';

/** GitPort over git-storage's gRPC API on one shard; request ids travel as metadata for tracing. */
export class GitStorageClient implements GitPort {
  constructor(
    private readonly router: StorageRouter,
    private readonly shard = '',
    private readonly requestId?: string,
    private readonly metrics?: GrpcMetrics,
  ) {}

  /** Calls for a repository on `shard`, tagged with a request id. */
  forRequest(requestId: string | undefined, shard: string): GitStorageClient {
    return new GitStorageClient(this.router, shard, requestId, this.metrics);
  }

  /** Calls for a repository on `shard` (recovery, outside any request). */
  onShard(shard: string): GitStorageClient {
    return new GitStorageClient(this.router, shard, undefined, this.metrics);
  }

  /** Resolved per call, so an unconfigured shard fails the call (503) rather than the request
   *  before anything needed git. */
  private get client(): StorageServiceClient {
    return this.router.client(this.shard);
  }

  private opts() {
    return { requestId: this.requestId, timeoutMs: TIMEOUT_MS, metrics: this.metrics };
  }

  async resolveBranch(repoId: string, branch: string): Promise<string | null> {
    try {
      const res = await callUnary<storage.ResolveRevisionRequest, storage.ResolveRevisionResponse__Output>(
        this.client,
        this.client.ResolveRevision,
        { repository_id: repoId, revision: `refs/heads/${branch}` },
        this.opts(),
      );
      return res.oid || null;
    } catch (err) {
      // A name git-storage refuses cannot name an existing branch either.
      if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return null;
      throw err;
    }
  }

  async branchTips(repoId: string): Promise<Map<string, string>> {
    const res = await callUnary<storage.ListRefsRequest, storage.ListRefsResponse__Output>(this.client, this.client.ListRefs, { repository_id: repoId, prefixes: [BRANCH_PREFIX] }, this.opts());
    return new Map(res.refs.filter((r) => r.name.startsWith(BRANCH_PREFIX)).map((r) => [r.name.slice(BRANCH_PREFIX.length), r.target]));
  }

  async resolveRevision(repoId: string, revision: string): Promise<string | null> {
    try {
      const res = await callUnary<storage.ResolveRevisionRequest, storage.ResolveRevisionResponse__Output>(
        this.client,
        this.client.ResolveRevision,
        { repository_id: repoId, revision },
        this.opts(),
      );
      return res.oid || null;
    } catch (err) {
      if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return null;
      throw err;
    }
  }

  async isAncestor(repoId: string, ancestor: string, descendant: string): Promise<boolean> {
    const res = await callUnary<storage.IsAncestorRequest, storage.IsAncestorResponse__Output>(
      this.client,
      this.client.IsAncestor,
      { repository_id: repoId, ancestor_oid: ancestor, descendant_oid: descendant },
      this.opts(),
    );
    return res.is_ancestor;
  }

  async mergeTips(repoId: string, source: string, target: string, prepareMerge = false): Promise<MergeTips> {
    let res: storage.ResolveMergeTipsResponse__Output;
    try {
      res = await callUnary<storage.ResolveMergeTipsRequest, storage.ResolveMergeTipsResponse__Output>(
        this.client,
        this.client.ResolveMergeTips,
        { repository_id: repoId, source_ref: `refs/heads/${source}`, target_ref: `refs/heads/${target}`, prepare_merge: prepareMerge },
        this.opts(),
      );
    } catch (err) {
      // A git-storage from before ResolveMergeTips (during a rolling upgrade): the three calls it replaces.
      if (!(err instanceof AppError && (err.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED)) throw err;
      const [s, t] = await Promise.all([this.resolveBranch(repoId, source), this.resolveBranch(repoId, target)]);
      return { source: s, target: t, targetInSource: s !== null && t !== null && (s === t || (await this.isAncestor(repoId, t, s))) };
    }
    return { source: res.source_oid || null, target: res.target_oid || null, targetInSource: res.target_in_source };
  }

  diff(repoId: string, from: string, to: string, limits: DiffLimits): Promise<Diff> {
    return readDiff(this.client, repoId, from, to, limits, { requestId: this.requestId, timeoutMs: TIMEOUT_MS, metrics: this.metrics });
  }

  async checkMerge(repoId: string, ours: string, theirs: string): Promise<{ clean: boolean; conflicts: string[] }> {
    const res = await callUnary<storage.CheckMergeRequest, storage.CheckMergeResponse__Output>(
      this.client,
      this.client.CheckMerge,
      { repository_id: repoId, ours_oid: ours, theirs_oid: theirs },
      this.opts(),
    );
    return { clean: res.clean, conflicts: res.conflicts };
  }

  async writeMerge(repoId: string, req: WriteMergeInput): Promise<{ ok: true; oid: string } | { ok: false; conflicts: string[] }> {
    try {
      const res = await callUnary<storage.WriteMergeRequest, storage.WriteMergeResponse__Output>(
        this.client,
        this.client.WriteMerge,
        { repository_id: repoId, ours_oid: req.ours, theirs_oid: req.theirs, author: req.author, committer: req.committer, message: req.message, squash: req.squash ?? false },
        this.opts(),
      );
      return { ok: true, oid: res.commit_oid };
    } catch (err) {
      if (!(err instanceof AppError) || err.kind !== 'conflict') throw err;
      const given = err.details?.conflicts;
      if (Array.isArray(given)) return { ok: false, conflicts: given.map(String) };
      return { ok: false, conflicts: (await this.checkMerge(repoId, req.ours, req.theirs)).conflicts };
    }
  }

  async updateRef(repoId: string, req: UpdateRefInput): Promise<'ok' | 'mismatch'> {
    try {
      await callUnary<storage.UpdateRefRequest, storage.UpdateRefResponse__Output>(
        this.client,
        this.client.UpdateRef,
        {
          repository_id: repoId,
          ref: req.ref,
          new_oid: req.newOid,
          old_oid: req.oldOid || ZERO_OID,
          context: { owner: req.context.owner, name: req.context.name, pusher: req.context.pusher, request_id: req.context.requestId },
        },
        this.opts(),
      );
      return 'ok';
    } catch (err) {
      if (err instanceof AppError && err.kind === 'conflict') return 'mismatch';
      throw err;
    }
  }

  async compare(repoId: string, base: string, head: string, maxCommits: number): Promise<Comparison> {
    const res = await callUnary<storage.CompareRequest, storage.CompareResponse__Output>(
      this.client,
      this.client.Compare,
      { repository_id: repoId, base_oid: base, head_oid: head, max_commits: maxCommits },
      this.opts(),
    );
    return {
      merge_base: res.merge_base || null,
      ahead_by: res.ahead_by,
      behind_by: res.behind_by,
      commits: res.commits.map((c) => parseCommit(c.oid, c.raw)),
    };
  }
}
