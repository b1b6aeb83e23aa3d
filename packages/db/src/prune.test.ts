import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, type Database } from './index.js';
import { deleteInBatches, startPruneLoop } from './prune.js';

const PRUNE = `WITH gone AS (DELETE FROM rows_kept WHERE ctid = ANY(ARRAY(SELECT ctid FROM rows_kept WHERE expired AND id > $2 ORDER BY id LIMIT $1)) RETURNING id)
  SELECT count(*)::int AS deleted, ARRAY[max(id)::text] AS cursor FROM gone`;
const prune = { sql: PRUNE, params: [], start: ['0'] };

describe('pruning a backlog on PGlite, beside requests', () => {
  let db: Database;
  /** What ran on the one connection, in order: a prune batch or a request's statement. */
  let ran: string[];
  /** When each prune batch started and ended (performance.now()). */
  let batches: { from: number; to: number }[];
  let traced: Database;

  beforeEach(async () => {
    db = await openDatabase({ schema: 'svc' });
    await db.query('CREATE TABLE rows_kept (id bigserial PRIMARY KEY, expired boolean NOT NULL, body text NOT NULL)');
    // 8 batches of 10,000 expired rows, and the rows the requests read. A batch is large enough
    // (tens of ms) that a request's five statements fit in the gap after it on a fast machine too.
    await db.query(`INSERT INTO rows_kept (expired, body) SELECT g <= 80000, repeat('b', 800) FROM generate_series(1, 81000) g`);
    ran = [];
    batches = [];
    traced = {
      ...db,
      query: <T>(sql: string, params?: unknown[]) => {
        const from = performance.now();
        return db.query<T>(sql, params).finally(() => {
          const batch = sql.startsWith('WITH gone');
          ran.push(batch ? 'batch' : 'request');
          if (batch) batches.push({ from, to: performance.now() });
        });
      },
    };
  });
  afterEach(() => db.close());

  it('when a request of five statements comes while a backlog is pruned, then it waits for a batch or two in all, not one before each statement', async () => {
    const pruning = deleteInBatches(traced, prune, 10_000);
    const spans: number[] = [];
    for (let r = 0; r < 5; r++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const from = ran.length;
      for (let i = 0; i < 5; i++) {
        await traced.query(`SELECT body FROM rows_kept WHERE id = $1`, [80_001 + i]);
        // A request's statements are apart by its own hops (HTTP, gRPC, another service).
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const during = ran.slice(from);
      spans.push(during.slice(during.indexOf('request'), during.lastIndexOf('request')).filter((s) => s === 'batch').length);
    }
    expect(await pruning).toBe(80_000);
    // Only yielding between batches, a batch ran before each statement of every request: 4 each.
    // With the idle gaps its statements take one gap, or two when it came late in one.
    expect(Math.max(...spans)).toBeLessThanOrEqual(2);
  });

  it('when a batch ends, then the connection is left idle three times as long as the batch took and at least 100 ms, so the pass takes at most a quarter of the thread', async () => {
    expect(await deleteInBatches(traced, prune, 10_000)).toBe(80_000);
    expect(batches).toHaveLength(9);
    // A timer may fire up to a millisecond before its time by performance.now()'s clock.
    const short = batches.slice(1).map((b, i) => ({ took: batches[i]!.to - batches[i]!.from, idle: b.from - batches[i]!.to })).filter((g) => g.idle < Math.max(100, 3 * g.took) - 2);
    expect(short).toEqual([]);
  });

  it('when batches are short, then the gap after each is still 100 ms, so a request of several statements meets one batch at most', async () => {
    // The first 100 expired rows, 25 a batch: a few milliseconds each.
    const few = { sql: PRUNE.replace('WHERE expired AND', 'WHERE expired AND id <= 100 AND'), params: [], start: ['0'] };
    expect(await deleteInBatches(traced, few, 25)).toBe(100);
    const gaps = batches.slice(1).map((b, i) => ({ took: batches[i]!.to - batches[i]!.from, idle: b.from - batches[i]!.to }));
    expect(gaps).toHaveLength(4);
    // Every gap is the longer of the two rules; a batch short enough (a few ms, under 30 even on a
    // loaded machine) shows the floor, not three times the batch, setting it.
    expect(gaps.filter((g) => g.idle < Math.max(100, 3 * g.took) - 2)).toEqual([]);
    expect(gaps.some((g) => 3 * g.took < 90)).toBe(true);
    expect(Math.min(...gaps.map((g) => g.idle))).toBeGreaterThanOrEqual(98);
  });
});

describe('a backlog pruned batch after batch', () => {
  let db: Database;
  beforeEach(async () => {
    db = await openDatabase({ schema: 'svc' });
    await db.query('CREATE TABLE aged (id bigserial PRIMARY KEY, at timestamptz NOT NULL, body text NOT NULL)');
    await db.query('CREATE INDEX aged_at_idx ON aged (at)');
    await db.query(`INSERT INTO aged (at, body) SELECT timestamptz '2026-01-01' + g * interval '1 second', 'b' FROM generate_series(1, 20000) g`);
    await db.query('VACUUM ANALYZE aged');
  });
  afterEach(() => db.close());

  const indexBlocks = async () => {
    await db.query('SELECT pg_stat_force_next_flush()');
    const { rows } = await db.query<{ n: string }>(`SELECT idx_blks_hit + idx_blks_read AS n FROM pg_statio_user_indexes WHERE indexrelname = 'aged_at_idx'`);
    return Number(rows[0]!.n);
  };

  it('when each batch starts after the cursor of the last, then the index is read about once over, not once more per batch', async () => {
    const before = await indexBlocks();
    const deleted = await deleteInBatches(
      db,
      {
        sql: `WITH gone AS (DELETE FROM aged WHERE ctid = ANY(ARRAY(SELECT ctid FROM aged WHERE at >= $2::timestamptz ORDER BY at LIMIT $1)) RETURNING at)
              SELECT count(*)::int AS deleted, ARRAY[max(at)::text] AS cursor FROM gone`,
        params: [],
        start: ['-infinity'],
      },
      200,
    );
    expect(deleted).toBe(20_000);
    expect(await db.query('SELECT 1 FROM aged')).toMatchObject({ rows: [] });
    // 20,000 keys fill ~55 leaf pages; 101 batches descend 2 levels each. Scanning from the start
    // each time steps over every key deleted before: 5,879 blocks against 405 (checked by keeping
    // each batch at the start).
    expect((await indexBlocks()) - before).toBeLessThan(800);
  });
});

describe('the prune loop', () => {
  it('runs a pass at its time, tells how much a pass that did something did and how long it took, and reports a failed one', async () => {
    const results = [3, 0];
    const done: [number, number][] = [];
    const errors: unknown[] = [];
    const loop = startPruneLoop({
      everyMs: 3_600_000,
      firstAfterMs: 5,
      pass: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const next = results.shift();
        if (next === undefined) throw new Error('table gone');
        return next;
      },
      onDone: (n, ms) => done.push([n, ms]),
      onError: (err) => errors.push(err),
    });
    for (let i = 0; i < 100 && done.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done).toEqual([[3, expect.any(Number)]]);
    expect(done[0]![1]).toBeGreaterThanOrEqual(19);
    expect(await loop.runNow()).toBe(0);
    expect(await loop.runNow()).toBe(0);
    await loop.stop();
    // A pass that pruned nothing is not told; a failed one is reported and counts as nothing.
    expect(done).toHaveLength(1);
    expect(errors).toEqual([new Error('table gone')]);
  });
});
