import { notFound } from '@githost/errors';
import type { Logger } from '@githost/logging';
import type { RefPolicySource } from './clients/ref-policies.js';
import type { ReadCaches } from './cache/read-caches.js';
import type { CatfilePool } from './git/catfile-pool.js';
import type { CompareBudget } from './git/compare.js';
import type { RefUpdaters } from './git/ref-updaters.js';
import { LocalRepository } from './git/local-repository.js';
import type { RefsCache } from './git/refs-cache.js';
import { repositoryExists } from './git/repository.js';
import { validateRepositoryId } from './git/validate.js';
import type { Housekeeper } from './housekeeping/housekeeper.js';
import type { LfsObjectStore } from './lfs/object-store.js';
import type { PushEventRecorder } from './events/push-events.js';
import type { RefIntents } from './events/ref-intents.js';
import { repositoryPath } from './repository-path.js';
import type { RefWatchers } from './watch/ref-watchers.js';

/** What the gRPC handlers and the smart HTTP routes share. */
export interface StorageContext {
  dataDir: string;
  pool: CatfilePool;
  /** Every compare-and-swap ref move this service makes itself (a push's are receive-pack's). */
  refUpdates: RefUpdaters;
  refs: RefsCache;
  /** Tree listings and log pages, which never change for the ids they are keyed by. */
  cache: ReadCaches;
  events: PushEventRecorder;
  /** Write-ahead records of ref changes, settled into push events (services/git-storage/README.md#push-events-survive-a-kill). */
  intents: RefIntents;
  housekeeping: Housekeeper;
  /** Readers caching ref lists; every ref change awaits their acks before it is acknowledged. */
  watchers: RefWatchers;
  logger: Logger;
  /** Branch and tag protection, read from accounts for every push and UpdateRef. */
  policies: RefPolicySource;
  /** The service's hooks directory (protection, ref intent record), given to every receive-pack. */
  hooksDir: string;
  /** Bounds on every push (docs/security.md#limits). */
  pushLimits: PushLimits;
  /** The repositories' Git LFS objects (docs/decisions/lfs.md). */
  lfs: LfsObjectStore;
  /** What one Compare may walk (docs/decisions/compare.md#budget). */
  compareBudget: CompareBudget;
}

export interface PushLimits {
  /** Largest pack, git's `receive.maxInputSize`. */
  maxBytes: number;
  /** Largest blob among the pushed objects. */
  maxFileBytes: number;
  /** Largest the repository's objects may grow to on disk; undefined: no quota. */
  quotaBytes?: number;
  /** Silence on the request body after which the push is cut off. */
  idleTimeoutMs: number;
}

/** The on-disk path of an existing repository; NOT_FOUND when there is none. */
export async function existingRepository(ctx: StorageContext, repositoryId: string): Promise<string> {
  const gitDir = repositoryPath(ctx.dataDir, validateRepositoryId(repositoryId));
  if (!(await repositoryExists(gitDir))) throw notFound('Repository not found');
  if (!ctx.housekeeping.seen(gitDir)) ctx.housekeeping.onFirstUse(gitDir);
  return gitDir;
}

/** An existing repository to run git operations on; NOT_FOUND when there is none. */
export async function openRepository(ctx: StorageContext, repositoryId: string): Promise<LocalRepository> {
  return new LocalRepository(await existingRepository(ctx, repositoryId), ctx);
}

/**
 * After any ref change this process made: fresh ref lists, housekeeping later, and every
 * watcher told. Await it before acknowledging the change to its initiator (read-your-writes
 * for the readers that cache refs). `changedRefs`, when the caller knows every ref it changed (full
 * names): the refs cache reads only those again, and the watchers hear their new values, so
 * a reader holding the refs updates them in place (docs/decisions/many-refs-push.md#the-refs-cache);
 * without them the cache is dropped and the watchers only hear that something changed.
 */
export async function refsChanged(ctx: StorageContext, gitDir: string, repositoryId: string, changedRefs?: readonly string[]): Promise<void> {
  if (!changedRefs) ctx.refs.invalidate(gitDir);
  const now = changedRefs ? ctx.refs.changed(gitDir, changedRefs) : undefined;
  ctx.housekeeping.schedule(gitDir);
  const fresh = await now;
  if (!changedRefs || !fresh) return ctx.watchers.notify(repositoryId);
  const byName = new Map(fresh.map((r) => [r.name, r]));
  // A deleted ref: an empty target.
  const refs = [...new Set(changedRefs)].map((name) => ({ name, target: byName.get(name)?.target ?? '', peeled: byName.get(name)?.peeled ?? '' }));
  await ctx.watchers.notify(repositoryId, { refs });
}
