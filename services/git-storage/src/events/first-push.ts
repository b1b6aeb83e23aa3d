import { backoffDelay } from '@githost/bus';
import { AppError, type ErrorKind } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { ZERO_OID } from '@githost/git-records/object-id';
import type { RefUpdate } from './push-events.js';

const BRANCH_PREFIX = 'refs/heads/';

/**
 * The branches `updates` created, in their order, when the repository had no branch before them:
 * no update moved or deleted an existing branch, and every branch on disk now (`branchesNow`,
 * full names) is one they created. Empty otherwise. A repository whose default branch was
 * deleted later still has other branches, so its setting stays (services/accounts/README.md#default-branch).
 */
export function branchesOfFirstPush(updates: readonly RefUpdate[], branchesNow: readonly string[]): string[] {
  const branchUpdates = updates.filter((u) => u.ref.startsWith(BRANCH_PREFIX));
  if (branchUpdates.some((u) => u.before !== ZERO_OID)) return [];
  const created = branchUpdates.filter((u) => u.after !== ZERO_OID).map((u) => u.ref);
  // Sets: a first push of 10,000 branches compares 10,000 names with 10,000, not 10,000 times each.
  const createdSet = new Set(created);
  const now = new Set(branchesNow);
  if (created.length === 0 || !branchesNow.every((ref) => createdSet.has(ref))) return [];
  return created.filter((ref) => now.has(ref)).map((ref) => ref.slice(BRANCH_PREFIX.length));
}

/** Whether `updates` may be a first push at all (cheap: no ref read), so most pushes skip the check. */
export function createsBranches(updates: readonly RefUpdate[]): boolean {
  return updates.some((u) => u.ref.startsWith(BRANCH_PREFIX) && u.before === ZERO_OID && u.after !== ZERO_OID);
}

/** accounts' AdoptPushedBranches: makes one of a first push's branches the default branch. */
export interface PushedBranchAdopter {
  adopt(repositoryId: string, branches: string[], requestId?: string): Promise<void>;
}

/** Answers asking again would not change. */
const FINAL_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['not_found', 'validation', 'forbidden', 'unauthenticated']);

/** Retries back off from 1 s to 60 s (the bus's jittered backoff), for as long as the process runs. */
const RETRY_BACKOFF = { initialMs: 1_000, maxMs: 60_000 };

/**
 * Tells accounts which branches a first push created, before the push's events are journaled
 * (so the push event and `default_branch` agree once the client hears the push went through).
 * When accounts cannot be asked (down, or not started yet when git-storage settles a record at
 * start), the call is retried in the background until it answers; the caller keeps its write-ahead
 * record until then, so a kill in between asks again at the next start.
 */
export class FirstPushAdoption {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly adopter: PushedBranchAdopter,
    private readonly logger: Logger,
  ) {}

  /** One attempt; false (logged) when it failed and asking again may help. An answer that will
   *  not change (the repository was deleted meanwhile, a request accounts refuses) ends it. */
  async tryOnce(repositoryId: string, branches: string[], requestId?: string): Promise<boolean> {
    try {
      await this.adopter.adopt(repositoryId, branches, requestId);
      return true;
    } catch (err) {
      if (err instanceof AppError && FINAL_KINDS.has(err.kind)) {
        this.logger.warn({ err, repository_id: repositoryId, branches }, 'first push: accounts refused to set the default branch; leaving it');
        return true;
      }
      this.logger.warn({ err, repository_id: repositoryId, branches }, 'first push: could not set the default branch yet; retrying');
      return false;
    }
  }

  /** Retries in the background until accounts answers, then runs `done`. */
  retry(repositoryId: string, branches: string[], done: () => Promise<void>, attempt = 0): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.tryOnce(repositoryId, branches).then(async (ok) => {
        if (ok) await done().catch((err: unknown) => this.logger.warn({ err }, 'first push: could not remove the settled record'));
        else this.retry(repositoryId, branches, done, attempt + 1);
      });
    }, backoffDelay(attempt, RETRY_BACKOFF));
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
