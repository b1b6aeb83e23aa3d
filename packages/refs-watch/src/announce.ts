import { AppError } from '@githost/errors';
import { callUnary, type GrpcMetrics } from '@githost/grpc';
import type { Logger } from '@githost/logging';
import type { storage } from '@githost/protos';
import type { ShardClients } from './watch.js';

export interface AnnounceOptions {
  requestId?: string;
  logger?: Logger;
  metrics?: GrpcMetrics;
  /** How long to keep trying while git-storage does not answer; past a watcher's staleness
   *  (RefsWatchOptions.staleAfterMs, 5 s) so a git-storage that is down for everyone has been
   *  given up on by every watcher before the writer gives up on it. */
  retryForMs?: number;
}

/** A little over the watch's default staleAfterMs (watch.ts). */
export const DEFAULT_ANNOUNCE_RETRY_MS = 6000;
const CALL_TIMEOUT_MS = 2000;

/** The gRPC status of a git-storage that predates AnnounceChange. */
const UNIMPLEMENTED = 12;

/** announceChange's repository for a change that may show in every repository of the shard. */
export const EVERY_REPOSITORY = Symbol('every repository');

/**
 * Tells the watchers of `shard` that `repositoryId`'s facts other than its refs changed
 * (git-storage AnnounceChange) and resolves once every watcher acked it
 * (docs/decisions/pulls-at-the-edge.md#announcing-a-change). Called by a writer after its write
 * committed and before it answers. Never throws: the write has happened, and failing its answer
 * would only make a client retry it. When git-storage cannot be reached for `retryForMs`, its
 * watchers have heard nothing for as long and have stopped answering from facts they keep
 * (their versions are undefined until they reconnect under a new epoch); that is logged as an
 * error. A git-storage without the call does not relay facts, so no watcher keeps anything by them.
 */
export async function announceChange(clients: Pick<ShardClients, 'client'>, shard: string, repositoryId: string | typeof EVERY_REPOSITORY, opts: AnnounceOptions = {}): Promise<void> {
  const request = repositoryId === EVERY_REPOSITORY ? { repository_id: '', every_repository: true } : { repository_id: repositoryId };
  const until = Date.now() + (opts.retryForMs ?? DEFAULT_ANNOUNCE_RETRY_MS);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    try {
      const client = clients.client(shard);
      await callUnary<storage.AnnounceChangeRequest, storage.AnnounceChangeResponse__Output>(client, client.AnnounceChange, request, { requestId: opts.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: opts.metrics });
      return;
    } catch (err) {
      if (err instanceof AppError && (err.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED) return;
      const retry = !(err instanceof AppError) || err.kind === 'unavailable';
      if (!retry || Date.now() + delay > until) {
        opts.logger?.error({ err, shard, repository_id: request.repository_id || 'every repository', request_id: opts.requestId }, 'could not announce a repository change to git-storage watchers');
        return;
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** announceChange of every repository on every shard, side by side (an account deleted). Never throws. */
export async function announceEverywhere(clients: ShardClients, opts: AnnounceOptions = {}): Promise<void> {
  await Promise.all(clients.shards.map((shard) => announceChange(clients, shard, EVERY_REPOSITORY, opts)));
}
