import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import { announceChange, announceEverywhere } from '@githost/refs-watch';
import { createStorageRouter, type ShardMap, type StorageRouter } from '@githost/storage-router';
import type { storage } from '@githost/protos';
import type { CallContext, DeletionEvent, RepositoryStorage } from '../domain/ports.js';

const BRANCH_PREFIX = 'refs/heads/';

/** Creating an empty bare repository is quick; a slow answer means storage is in trouble. */
const CALL_TIMEOUT_MS = 15_000;

/** git-storage over gRPC, on the repository's shard; statuses come back as AppErrors
 *  (unreachable or unconfigured shard -> unavailable, 503). */
export class GrpcRepositoryStorage implements RepositoryStorage {
  private readonly router: StorageRouter;

  constructor(
    shards: ShardMap,
    internalSecret: string,
    private readonly metrics?: GrpcMetrics,
    private readonly logger?: Logger,
  ) {
    this.router = createStorageRouter(shards, internalSecret);
  }

  async createRepository(shard: string, repositoryId: string, defaultBranch: string, ctx: CallContext = {}): Promise<void> {
    const client = this.router.client(shard);
    await callUnary(client, client.CreateRepository, { repository_id: repositoryId, default_branch: defaultBranch }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: this.metrics });
  }

  async removeRepository(shard: string, repositoryId: string, ctx: CallContext = {}, deletion?: DeletionEvent): Promise<void> {
    const client = this.router.client(shard);
    const context = deletion ? { owner: deletion.owner, name: deletion.name, pusher: deletion.pusher, request_id: ctx.requestId ?? '' } : null;
    await callUnary(client, client.RemoveRepository, { repository_id: repositoryId, context }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: this.metrics });
  }

  async setDefaultBranch(shard: string, repositoryId: string, branch: string, ctx: CallContext = {}): Promise<void> {
    const client = this.router.client(shard);
    await callUnary(client, client.SetDefaultBranch, { repository_id: repositoryId, branch }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: this.metrics });
  }

  async listBranches(shard: string, repositoryId: string, ctx: CallContext = {}): Promise<string[]> {
    const client = this.router.client(shard);
    const res = await callUnary<storage.ListRefsRequest, storage.ListRefsResponse__Output>(client, client.ListRefs, { repository_id: repositoryId, prefixes: [BRANCH_PREFIX] }, { requestId: ctx.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: this.metrics });
    return res.refs.filter((r) => r.name.startsWith(BRANCH_PREFIX)).map((r) => r.name.slice(BRANCH_PREFIX.length));
  }

  announceChange(shard: string, repositoryId: string, ctx: CallContext = {}): Promise<void> {
    return announceChange(this.router, shard, repositoryId, { requestId: ctx.requestId, logger: this.logger, metrics: this.metrics });
  }

  announceEverywhere(ctx: CallContext = {}): Promise<void> {
    return announceEverywhere(this.router, { requestId: ctx.requestId, logger: this.logger, metrics: this.metrics });
  }

  /** For /readyz: whether some shard can take a new repository now. */
  ready(timeoutMs = 1000): Promise<boolean> {
    return this.router.ready(timeoutMs);
  }

  close(): void {
    this.router.close();
  }
}
