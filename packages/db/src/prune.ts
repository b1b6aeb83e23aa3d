import type { Database } from './index.js';
import { yieldToEventLoop } from '@githost/runtime';

/**
 * Retention of tables that only grow (docs/decisions/list-paging.md#retention): rows are deleted
 * in small statements of their own (no transaction around them), each taking its rows with
 * `FOR UPDATE SKIP LOCKED`, so pruning never waits on a row a request holds and a request waits
 * at most for one small batch. On PGlite (one connection, and one event loop, for every service of
 * the process) the loop leaves the connection idle after each batch for as long as the batch took:
 * a request that queued behind a batch then runs all its statements in the gap, instead of waiting
 * for a batch before each of them (docs/decisions/database-upkeep.md#background-work-on-pglite).
 * On a server the batches and requests run side by side, and the loop only yields.
 */

/** Rows per statement. Not fewer on PGlite: 100 rows a statement left the requests' wait during a
 *  backlog where it was and made the backlog last longer (docs/decisions/database-upkeep.md#background-work-on-pglite). */
export const PRUNE_BATCH = 500;

/**
 * Runs `sql` (one DELETE of at most `batch` rows, its last parameter the batch size) until it
 * deletes fewer than `batch`; the rows deleted. `params` come first.
 */
export async function deleteInBatches(db: Pick<Database, 'query' | 'kind'>, sql: string, params: unknown[], batch = PRUNE_BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const started = performance.now();
    const r = await db.query(sql, [...params, batch]);
    total += r.rowCount;
    if (r.rowCount < batch) return total;
    if (db.kind === 'pglite') await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    else await yieldToEventLoop();
  }
}

export interface PruneLoop {
  /** One pass now (also what the timer runs); passes never overlap. */
  runNow(): Promise<number>;
  stop(): Promise<void>;
}

/** Runs `pass` every `everyMs` (first one `firstAfterMs` after start); a failed pass is reported and the next one tries again. */
export function startPruneLoop(opts: { everyMs: number; firstAfterMs?: number; pass: () => Promise<number>; onError?: (err: unknown) => void }): PruneLoop {
  let running: Promise<number> | undefined;
  let stopped = false;
  const runNow = () => {
    running ??= opts
      .pass()
      .catch((err: unknown) => {
        opts.onError?.(err);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void runNow().then(() => schedule(opts.everyMs));
    }, ms);
    timer.unref();
  };
  schedule(opts.firstAfterMs ?? opts.everyMs);
  return {
    runNow,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
