import type { Database } from './index.js';
import { yieldToEventLoop } from '@githost/runtime';

/**
 * Retention of tables that only grow (docs/decisions/list-paging.md#retention): rows are deleted
 * in small statements of their own (no transaction around them), each taking its rows with
 * `FOR UPDATE SKIP LOCKED`, so pruning never waits on a row a request holds and a request waits
 * at most for one small batch. On PGlite (one connection for every service of
 * the process) the loop leaves the connection idle after each batch (PGLITE_IDLE_PER_BATCH): a
 * request that queued behind a batch then runs all its statements in the gap, instead of waiting
 * for a batch before each of them (docs/decisions/database-upkeep.md#background-work-on-pglite).
 * On a server the batches and requests run side by side, and the loop only yields.
 */

/** Rows per statement on a Postgres server, where batches run beside the requests on their own
 *  connection. */
export const PRUNE_BATCH = 500;
/** Rows per statement on PGlite, where a request waits for the batch in flight: a batch's cost is
 *  about 1.5 ms a statement and the rest per row once it starts after the last (the cursor below),
 *  so fewer rows shorten that wait down to where the statement's own cost is most of it
 *  (docs/decisions/database-upkeep.md#why-a-batch-was-slow-and-what-made-it-short). */
export const PRUNE_BATCH_PGLITE = 100;
/** On PGlite, the idle gap after a batch in multiples of the batch's own time: the pass takes at
 *  most a quarter of the one connection, so a short request meets a batch a quarter as often
 *  (docs/decisions/database-upkeep.md#background-work-on-pglite). */
export const PGLITE_IDLE_PER_BATCH = 3;
/** ... and at least this long: a request of several statements (a page: 10-80 ms) fits between two
 *  batches and meets one at most, however short the batches; with gaps only three times a 4 ms
 *  batch it met two or three. A backlog of 400,000 deliveries then takes about seven minutes. */
export const PGLITE_MIN_IDLE_MS = 100;

/**
 * One prune statement that walks an index forward. It deletes at most `batch` rows in the index's
 * order, all of them after `cursor`, and answers one row: how many it deleted and the cursor of
 * the last of them. Its parameters are `params`, then the batch size, then the cursor's values.
 * Each batch starts where the one before ended: rows deleted stay in the index until a vacuum,
 * and a scan from the index's start stepped over all of them again in every batch, so that a
 * backlog's batches grew ever slower (docs/decisions/database-upkeep.md#why-a-batch-was-slow-and-what-made-it-short).
 */
export interface ForwardPrune {
  sql: string;
  params: unknown[];
  /** The cursor before every row: where a pass begins. */
  start: string[];
}

interface BatchRow {
  deleted: number;
  cursor: string[] | null;
}

/**
 * Runs `prune` batch after batch until one deletes fewer than the batch size; the rows deleted.
 * A row a batch passes over (locked by a request, or kept) is left for the next pass.
 */
export async function deleteInBatches(db: Pick<Database, 'query' | 'kind'>, prune: ForwardPrune, batch = db.kind === 'pglite' ? PRUNE_BATCH_PGLITE : PRUNE_BATCH): Promise<number> {
  let total = 0;
  let cursor = prune.start;
  for (;;) {
    const started = performance.now();
    const { rows } = await db.query<BatchRow>(prune.sql, [...prune.params, batch, ...cursor]);
    const deleted = rows[0]?.deleted ?? 0;
    total += deleted;
    if (deleted < batch) return total;
    cursor = rows[0]!.cursor!;
    if (db.kind === 'pglite') await new Promise((resolve) => setTimeout(resolve, Math.max(PGLITE_MIN_IDLE_MS, PGLITE_IDLE_PER_BATCH * (performance.now() - started))));
    else await yieldToEventLoop();
  }
}

export interface PruneLoop {
  /** One pass now (also what the timer runs); passes never overlap. */
  runNow(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `everyMs` (first one `firstAfterMs` after start); a failed pass is reported and
 * the next one tries again, one that did something (`pass` answers how much) is told to `onDone`
 * with how long it ran.
 */
export function startPruneLoop(opts: { everyMs: number; firstAfterMs?: number; pass: () => Promise<number>; onError?: (err: unknown) => void; onDone?: (done: number, ms: number) => void }): PruneLoop {
  let running: Promise<number> | undefined;
  let stopped = false;
  const pass = async () => {
    const started = performance.now();
    const done = await opts.pass();
    if (done > 0) opts.onDone?.(done, performance.now() - started);
    return done;
  };
  const runNow = () => {
    running ??= pass()
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
