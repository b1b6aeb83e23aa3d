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

/** Past the foreground budget, an announcement is tried again in the background this often at
 *  first, doubling up to BACKGROUND_MAX_DELAY_MS, until git-storage takes it. */
const BACKGROUND_MIN_DELAY_MS = 1000;
const BACKGROUND_MAX_DELAY_MS = 30_000;
/** Announcements waiting in the background at most (one per shard and repository): past it a
 *  new one is only logged. */
const MAX_BACKGROUND = 10_000;
const background = new Map<string, true>();

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
 * error, and the announcement goes on being tried in the background (at most one per shard and
 * repository, every 1 s doubling to 30 s) until git-storage takes it: a writer parted from a
 * git-storage that the readers still hear leaves their kept answers stale only until the network
 * is back (docs/decisions/pulls-at-the-edge.md#announcing-a-change). A git-storage without the
 * call does not relay facts, so no watcher keeps anything by them.
 */
export async function announceChange(clients: Pick<ShardClients, 'client'>, shard: string, repositoryId: string | typeof EVERY_REPOSITORY, opts: AnnounceOptions = {}): Promise<void> {
  const request = repositoryId === EVERY_REPOSITORY ? { repository_id: '', every_repository: true } : { repository_id: repositoryId };
  const until = Date.now() + (opts.retryForMs ?? DEFAULT_ANNOUNCE_RETRY_MS);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
    const outcome = await announceOnce(clients, shard, request, opts);
    if (outcome === 'done') return;
    if (outcome instanceof Error || Date.now() + delay > until) {
      const err = outcome instanceof Error ? outcome : undefined;
      const fields = { err, shard, repository_id: request.repository_id || 'every repository', request_id: opts.requestId };
      opts.logger?.error(fields, 'could not announce a repository change to git-storage watchers');
      if (outcome === 'unavailable') retryInBackground(clients, shard, request, opts);
      return;
    }
    await sleep(delay);
  }
}

type AnnounceRequest = storage.AnnounceChangeRequest;

/** One call: 'done' (taken, or a git-storage without the call), 'unavailable' (worth trying
 *  again), or the error that refused it for good. */
async function announceOnce(clients: Pick<ShardClients, 'client'>, shard: string, request: AnnounceRequest, opts: AnnounceOptions): Promise<'done' | 'unavailable' | Error> {
  try {
    const client = clients.client(shard);
    await callUnary<storage.AnnounceChangeRequest, storage.AnnounceChangeResponse__Output>(client, client.AnnounceChange, request, { requestId: opts.requestId, timeoutMs: CALL_TIMEOUT_MS, metrics: opts.metrics });
    return 'done';
  } catch (err) {
    if (err instanceof AppError && (err.cause as { code?: unknown } | undefined)?.code === UNIMPLEMENTED) return 'done';
    if (!(err instanceof AppError) || err.kind === 'unavailable') return 'unavailable';
    return err;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Keeps trying an announcement the writer gave up waiting for, without holding the process open. */
function retryInBackground(clients: Pick<ShardClients, 'client'>, shard: string, request: AnnounceRequest, opts: AnnounceOptions): void {
  const key = `${shard}\0${request.every_repository ? '*' : request.repository_id}`;
  if (background.has(key)) return;
  if (background.size >= MAX_BACKGROUND) return;
  background.set(key, true);
  void (async () => {
    for (let delay = BACKGROUND_MIN_DELAY_MS, attempts = 1; ; delay = Math.min(delay * 2, BACKGROUND_MAX_DELAY_MS), attempts++) {
      await sleep(delay);
      const outcome = await announceOnce(clients, shard, request, opts);
      if (outcome === 'unavailable') continue;
      background.delete(key);
      if (outcome === 'done') opts.logger?.info({ shard, repository_id: request.repository_id || 'every repository', attempts }, 'announced a repository change to git-storage watchers after retrying');
      return;
    }
  })();
}

/** announceChange of every repository on every shard, side by side (an account deleted). Never throws. */
export async function announceEverywhere(clients: ShardClients, opts: AnnounceOptions = {}): Promise<void> {
  await Promise.all(clients.shards.map((shard) => announceChange(clients, shard, EVERY_REPOSITORY, opts)));
}
