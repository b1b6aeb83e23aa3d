import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openDatabase, type Database } from './index.js';
import { deleteInBatches } from './prune.js';

const PRUNE = `DELETE FROM rows_kept WHERE id = ANY(ARRAY(SELECT id FROM rows_kept WHERE expired ORDER BY id LIMIT $1))`;

describe('pruning a backlog on PGlite, beside requests', () => {
  let db: Database;
  /** What ran on the one connection, in order: a prune batch or a request's statement. */
  let ran: string[];
  let traced: Database;

  beforeEach(async () => {
    db = await openDatabase({ schema: 'svc' });
    await db.query('CREATE TABLE rows_kept (id bigserial PRIMARY KEY, expired boolean NOT NULL, body text NOT NULL)');
    // 8 batches of 10,000 expired rows, and the rows the requests read. A batch is large enough
    // (tens of ms) that a request's five statements fit in the gap after it on a fast machine too.
    await db.query(`INSERT INTO rows_kept (expired, body) SELECT g <= 80000, repeat('b', 800) FROM generate_series(1, 81000) g`);
    ran = [];
    traced = { ...db, query: <T>(sql: string, params?: unknown[]) => db.query<T>(sql, params).finally(() => ran.push(sql === PRUNE ? 'batch' : 'request')) };
  });
  afterEach(() => db.close());

  it('when a request of five statements comes while a backlog is pruned, then it waits for a batch or two in all, not one before each statement', async () => {
    const pruning = deleteInBatches(traced, PRUNE, [], 10_000);
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
});
