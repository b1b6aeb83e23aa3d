import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, migrate, openDatabase, type Database } from './index.js';
import { checkpointDue, checkpointIfDue, startUpkeep, upkeepFor, upkeepPass } from './upkeep.js';

const migrations = [
  {
    version: 1,
    name: 'items',
    sql: 'CREATE TABLE items (id text PRIMARY KEY, owner text NOT NULL, name text NOT NULL, body text NOT NULL DEFAULT \'\');\nCREATE UNIQUE INDEX items_owner_name ON items (owner, lower(name));',
  },
];

/** One owner with 10,000 items and 100 owners with one each: an owner's list of the site axis. */
async function seed(db: Database): Promise<void> {
  await db.query(`INSERT INTO items (id, owner, name) SELECT 'big-' || g, 'big', 'r' || lpad(g::text, 6, '0') FROM generate_series(1, 10000) g`);
  await db.query(`INSERT INTO items (id, owner, name) SELECT 'one-' || g, 'u' || g, 'one' FROM generate_series(1, 100) g`);
}

const PAGE = `SELECT id, name FROM items WHERE owner = 'big' ORDER BY lower(name), id LIMIT 100`;

async function plan(db: Database, sql: string): Promise<string> {
  const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

async function tableBytes(db: Database): Promise<number> {
  const { rows } = await db.query<{ bytes: string }>(`SELECT pg_relation_size('items') AS bytes`);
  return Number(rows[0]!.bytes);
}

describe('upkeepFor: autovacuum\'s rule', () => {
  const quiet = { reltuples: 10_000, bytes: 1_000_000, deadRows: 0, changedSinceAnalyze: 0, insertedSinceVacuum: 0, xidAge: 1_000 };
  it('analyses past 50 + 10 % of the rows changed, and a table never analysed that has rows', () => {
    expect(upkeepFor(quiet)).toBeUndefined();
    expect(upkeepFor({ ...quiet, changedSinceAnalyze: 1_050 })).toBeUndefined();
    expect(upkeepFor({ ...quiet, changedSinceAnalyze: 1_051 })).toBe('ANALYZE');
    expect(upkeepFor({ ...quiet, reltuples: -1, insertedSinceVacuum: 3, changedSinceAnalyze: 3 })).toBe('ANALYZE');
    // Counters at zero (a new process) but rows on disk: still never analysed.
    expect(upkeepFor({ ...quiet, reltuples: -1 })).toBe('ANALYZE');
    expect(upkeepFor({ ...quiet, reltuples: -1, bytes: 0 })).toBeUndefined();
  });
  it('takes every table with rows when nothing says what changed in it before this process', () => {
    expect(upkeepFor(quiet, true)).toBe('VACUUM (ANALYZE)');
    expect(upkeepFor({ ...quiet, bytes: 0 }, true)).toBeUndefined();
  });
  it('vacuums past 50 + 20 % dead rows, or 1,000 + 20 % inserted ones', () => {
    expect(upkeepFor({ ...quiet, deadRows: 2_050 })).toBeUndefined();
    expect(upkeepFor({ ...quiet, deadRows: 2_051 })).toBe('VACUUM');
    expect(upkeepFor({ ...quiet, insertedSinceVacuum: 3_001 })).toBe('VACUUM');
    expect(upkeepFor({ ...quiet, deadRows: 2_051, changedSinceAnalyze: 2_051 })).toBe('VACUUM (ANALYZE)');
  });
  it('vacuums a table nobody changes once its oldest transaction id is 200 million transactions old', () => {
    expect(upkeepFor({ ...quiet, xidAge: 200_000_000 })).toBeUndefined();
    expect(upkeepFor({ ...quiet, xidAge: 200_000_001 })).toBe('VACUUM');
  });
});

describe('checkpointDue: the checkpointer\'s rule', () => {
  it('checkpoints after 64 MiB of WAL, or after five minutes with anything written', () => {
    expect(checkpointDue({ walSinceCheckpoint: 64 * 1024 * 1024, secondsSinceCheckpoint: 1 })).toBe(true);
    expect(checkpointDue({ walSinceCheckpoint: 64 * 1024 * 1024 - 1, secondsSinceCheckpoint: 299 })).toBe(false);
    expect(checkpointDue({ walSinceCheckpoint: 100_000, secondsSinceCheckpoint: 300 })).toBe(true);
    // A checkpoint's own record and nothing since: an idle site is left alone.
    expect(checkpointDue({ walSinceCheckpoint: 120, secondsSinceCheckpoint: 3_600 })).toBe(false);
  });
});

describe('the embedded database upkeep (PGlite)', () => {
  let db: Database;
  beforeEach(async () => {
    db = await openDatabase({ schema: 'svc' });
    await migrate(db, migrations);
  });
  afterEach(() => db.close());

  it('gathers the statistics an owner\'s page needs to be read in index order', async () => {
    await seed(db);
    // Never analysed: the planner guesses a few rows per owner, reads all 10,000 and sorts them.
    expect(await plan(db, PAGE)).not.toContain('Index Scan using items_owner_name');
    expect(await upkeepPass(db)).toBe(2); // items and the migrations' own table
    expect(await plan(db, PAGE)).toContain('Index Scan using items_owner_name');
    const { rows } = await db.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = 'items'::regclass`);
    expect(rows[0]!.reltuples).toBe(10_100);
    // Nothing changed since: the next pass only reads the counters.
    expect(await upkeepPass(db)).toBe(0);
  });

  it('analyses from a sample of 3,000 rows (statistics target 10), so a large table holds the one connection a tenth as long', async () => {
    await seed(db);
    await upkeepPass(db);
    // One histogram bound more than the target: 11 at 10, 101 at Postgres' default of 100.
    const { rows } = await db.query<{ bounds: number }>(`SELECT cardinality(histogram_bounds::text::text[]) AS bounds FROM pg_stats WHERE tablename = 'items' AND attname = 'name'`);
    expect(rows).toEqual([{ bounds: 11 }]);
  });

  it('leaves the room of deleted rows to new ones, so a pruned table stops growing', async () => {
    const fill = (from: number) => db.query(`INSERT INTO items (id, owner, name, body) SELECT 'x-' || g, 'o', 'n' || g, repeat('b', 500) FROM generate_series($1::int, $1::int + 4999) g`, [from]);
    await fill(0);
    const full = await tableBytes(db);
    await db.query('DELETE FROM items');
    await upkeepPass(db);
    await fill(5000);
    // Without the vacuum the new rows go after the dead ones: twice the size.
    expect(await tableBytes(db)).toBeLessThanOrEqual(full * 1.1);
  });

  it('checkpoints as WAL grows, so the WAL on disk and what a crash replays stop growing with the writes', async () => {
    const walBytes = async () => Number((await db.query<{ bytes: string }>('SELECT sum(size) AS bytes FROM pg_ls_waldir()')).rows[0]!.bytes);
    const replayed = async () => Number((await db.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn) AS bytes FROM pg_control_checkpoint()')).rows[0]!.bytes);
    // ~70 MB of WAL a round: past the 64 MiB that make a checkpoint due.
    const round = () => db.query(`INSERT INTO items (id, owner, name, body) SELECT gen_random_uuid()::text, 'o', gen_random_uuid()::text, repeat('w', 900) FROM generate_series(1, 60000)`);
    await round();
    expect(await checkpointIfDue(db)).toBe(true);
    expect(await checkpointIfDue(db)).toBe(false); // nothing written since
    const afterFirst = await walBytes();
    for (let i = 0; i < 3; i++) {
      await round();
      expect(await checkpointIfDue(db)).toBe(true);
      expect(await replayed()).toBeLessThan(1024 * 1024);
    }
    // Without the checkpoints each round adds its ~70 MB; with them the segments are reused.
    expect(await walBytes()).toBeLessThanOrEqual(afterFirst + 80 * 1024 * 1024);
  });

  it('runs passes on its own until stopped, and says what each statement held the connection for', async () => {
    await seed(db);
    const warnings: string[] = [];
    const told: Record<string, unknown>[] = [];
    const loop = await startUpkeep(db, { firstAfterMs: 10, everyMs: 60_000, warn: (_f, m) => warnings.push(m), info: (f, m) => told.push({ ...f, m }) });
    expect(loop).toBeDefined();
    for (let i = 0; i < 200 && !(await plan(db, PAGE)).includes('Index Scan using items_owner_name'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(await plan(db, PAGE)).toContain('Index Scan using items_owner_name');
    await loop!.stop();
    expect(warnings).toEqual([]);
    // The first pass takes every table with rows (no counts were kept for them): a vacuum, then an
    // analyse, each a statement of its own and a line.
    const line = (table: string, statement: string) => ({ m: 'embedded database upkeep', schema: db.schema, table, statement, duration_ms: expect.any(Number) });
    expect(told).toEqual([line('items', 'VACUUM'), line('items', 'ANALYZE'), line('schema_migrations', 'VACUUM'), line('schema_migrations', 'ANALYZE')]);
  });
});

describe('the embedded database upkeep across a restart (PGlite on disk)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'githost-upkeep-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A process of the service: its database opened with the upkeep's loop (passes run by hand), `work` done, then closed as a service stops. */
  async function aProcess(work: (db: Database, pass: () => Promise<number>) => Promise<void>): Promise<void> {
    const db = await openDatabase({ dataDir: dir, schema: 'svc' });
    try {
      await migrate(db, migrations);
      const loop = await startUpkeep(db, { everyMs: 3_600_000, warn: (_f, m) => { throw new Error(m); } });
      try {
        await work(db, () => loop!.runNow());
      } finally {
        await loop!.stop();
      }
    } finally {
      await db.close();
    }
  }
  /** The tables this process's upkeep vacuumed or analysed, and how often (PGlite's counters are the process's own). */
  const actedOn = async (db: Database) =>
    Object.fromEntries(
      (await db.query<{ relname: string; n: string }>(`SELECT relname, vacuum_count + analyze_count AS n FROM pg_stat_user_tables WHERE schemaname = 'svc' AND vacuum_count + analyze_count > 0 ORDER BY relname`)).rows.map((r) => [r.relname, Number(r.n)]),
    );
  const reltuples = async (db: Database) => Number((await db.query<{ n: number }>(`SELECT reltuples AS n FROM pg_class WHERE oid = 'items'::regclass`)).rows[0]!.n);
  const change = (db: Database, rows: number) => db.query(`UPDATE items SET body = body || 'x' WHERE id IN (SELECT id FROM items ORDER BY id LIMIT $1)`, [rows]);

  it('takes every table with rows on the first start, when no counts were kept, and then only what is due', async () => {
    await aProcess(async (db, pass) => {
      await seed(db);
      await pass();
      expect(await actedOn(db)).toEqual({ items: 2, schema_migrations: 2 }); // VACUUM (ANALYZE): a vacuum and an analyse each
      expect(await reltuples(db)).toBe(10_100);
      await pass();
      expect(await actedOn(db)).toEqual({ items: 2, schema_migrations: 2 });
    });
  });

  it('keeps the counts of one process for the next: changes made before a restart are acted on after it', async () => {
    await aProcess(async (db, pass) => {
      await db.query(`INSERT INTO items (id, owner, name) SELECT 'one-' || g, 'u' || g, 'one' FROM generate_series(1, 100) g`);
      await pass();
      // After the last pass, before the stop: the stop writes them down.
      await db.query(`INSERT INTO items (id, owner, name) SELECT 'big-' || g, 'big', 'r' || lpad(g::text, 6, '0') FROM generate_series(1, 10000) g`);
    });
    await aProcess(async (db, pass) => {
      // This process's own counters say nothing changed; the kept counts say 10,000 rows came.
      expect(await reltuples(db)).toBe(100);
      await pass();
      expect(await actedOn(db)).toEqual({ items: 2 }); // 10,000 inserted: past both thresholds
      expect(await reltuples(db)).toBe(10_100);
    });
  });

  it('adds the counts of both processes: changes under the threshold in each, past it together, are analysed', async () => {
    await aProcess(async (db, pass) => {
      await seed(db);
      await pass();
      await change(db, 600); // 50 + 10 % of 10,100 is 1,060
      await pass();
      expect(await actedOn(db)).toEqual({ items: 2, schema_migrations: 2 }); // the first start's, only
    });
    await aProcess(async (db, pass) => {
      await change(db, 600);
      await pass();
      expect(await actedOn(db)).toEqual({ items: 1 }); // 1,200 changed: analysed; 1,200 dead of 2,070: not vacuumed
      await pass();
      expect(await actedOn(db)).toEqual({ items: 1 });
    });
  });

  it('leaves alone after a restart a table nobody changed, however large (no second a table of every start)', async () => {
    await aProcess(async (db, pass) => {
      await seed(db);
      await pass();
    });
    await aProcess(async (db, pass) => {
      await pass();
      expect(await actedOn(db)).toEqual({});
    });
  });
});

describe('the upkeep on Postgres', () => {
  it('leaves it to the server\'s autovacuum and warns when the server has it off', async () => {
    const t = await createTestDatabase();
    const db = await openDatabase({ url: t.url, schema: 'svc' });
    try {
      const { rows } = await db.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`);
      const warnings: Array<Record<string, unknown>> = [];
      const loop = await startUpkeep(db, { firstAfterMs: 10, warn: (fields) => warnings.push(fields) });
      expect(loop).toBeUndefined();
      // This machine's CI Postgres has it off (its conf.d); a default Postgres has it on.
      expect(warnings).toEqual(rows[0]!.autovacuum === 'on' ? [] : [{ schema: 'svc', autovacuum: 'off' }]);
    } finally {
      await db.close();
      await t.drop();
    }
  });
});
