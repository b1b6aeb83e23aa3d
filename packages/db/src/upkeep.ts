import { yieldToEventLoop } from '@githost/runtime';
import type { Database } from './index.js';
import { startPruneLoop, type PruneLoop } from './prune.js';

/**
 * What Postgres's autovacuum and checkpointer do for a server, done for the embedded database
 * (docs/decisions/database-upkeep.md): PGlite runs no background workers, so without this its
 * tables are never analysed (every plan is made from guesses: an owner's page of 100 out of
 * 10,000 repositories read all 10,000 and sorted them), rows deleted by retention never leave
 * room for new ones, and no checkpoint is ever made while it runs: its WAL grows with every write
 * since the start, on disk and in what a restart after a crash replays.
 */

/** Autovacuum's own pace and thresholds (PostgreSQL docs, "The Autovacuum Daemon": `autovacuum_naptime`,
 *  `autovacuum_{vacuum,vacuum_insert,analyze}_{threshold,scale_factor}` at their defaults). */
export const UPKEEP_EVERY_MS = 60_000;
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_THRESHOLD = 50;
const VACUUM_SCALE = 0.2;
const VACUUM_INSERT_THRESHOLD = 1000;
const VACUUM_INSERT_SCALE = 0.2;
/** `autovacuum_freeze_max_age`: past it a table is vacuumed whatever changed, before its
 *  transaction ids could wrap around (PostgreSQL docs, "Preventing Transaction ID Wraparound Failures"). */
const FREEZE_MAX_AGE = 200_000_000;

/** A table's counters as `pg_stat_user_tables` and `pg_class` keep them. */
export interface TableActivity {
  /** Rows at the last vacuum or analyse; -1 before the first. */
  reltuples: number;
  /** The table's size on disk (`pg_relation_size`), which unlike the counters outlives a restart. */
  bytes: number;
  deadRows: number;
  changedSinceAnalyze: number;
  insertedSinceVacuum: number;
  /** `age(relfrozenxid)`: transactions since the table's oldest unfrozen one. */
  xidAge: number;
}

/**
 * What autovacuum would do to the table now: its rule (changes, dead rows, inserts, transaction id
 * age), with a table never analysed that has rows analysed at once. `unknown`: nothing says what
 * changed in the table before this process (PGlite's counters start at zero with each process, and
 * no count of an earlier one was kept for it: the first start with upkeep, a new table), so a
 * table that has rows is taken.
 */
export function upkeepFor(t: TableActivity, unknown = false): 'VACUUM (ANALYZE)' | 'VACUUM' | 'ANALYZE' | undefined {
  if (unknown && t.bytes > 0) return 'VACUUM (ANALYZE)';
  const rows = Math.max(0, t.reltuples);
  const analyze = (t.reltuples < 0 && t.bytes > 0) || t.changedSinceAnalyze > ANALYZE_THRESHOLD + ANALYZE_SCALE * rows;
  const vacuum = t.deadRows > VACUUM_THRESHOLD + VACUUM_SCALE * rows || t.insertedSinceVacuum > VACUUM_INSERT_THRESHOLD + VACUUM_INSERT_SCALE * rows || t.xidAge > FREEZE_MAX_AGE;
  if (vacuum && analyze) return 'VACUUM (ANALYZE)';
  if (vacuum) return 'VACUUM';
  return analyze ? 'ANALYZE' : undefined;
}

/** Told each statement the upkeep ran, with how long it held the connection. */
type Ran = (statement: string, ms: number, table?: string) => void;

/** `sql` on the connection, its time told to `ran` as `statement` (of `table`). */
async function timed(db: Database, sql: string, ran: Ran | undefined, statement: string, table?: string): Promise<void> {
  const started = performance.now();
  await db.query(sql);
  ran?.(statement, performance.now() - started, table);
}

/** A table's counts of changes no vacuum or analyse has acted on yet. */
export interface Counts {
  changed: number;
  dead: number;
  inserted: number;
}

const NONE: Counts = { changed: 0, dead: 0, inserted: 0 };

/**
 * The upkeep's own table in each schema: each table's counts not yet acted on, as of the last pass
 * or the upkeep's stop. Postgres writes its counters to a statistics file at shutdown and reads
 * them at start; PGlite keeps none, so without this every restart would forget what changed
 * before it (and a process that runs less than the thresholds' worth of changes would never take
 * a table), or take every table again at each start, which at a million rows holds the one
 * connection, and every request of the process behind it, for a second a table.
 */
const COUNTS_TABLE = 'upkeep_counts';

/** The counts an earlier process left (`upkeep_counts`, made here on first use). */
export async function carriedCounts(db: Database): Promise<Map<string, Counts>> {
  await db.query(`CREATE TABLE IF NOT EXISTS ${db.schema}.${COUNTS_TABLE} (relname text PRIMARY KEY, changed bigint NOT NULL, dead bigint NOT NULL, inserted bigint NOT NULL)`);
  const { rows } = await db.query<{ relname: string; changed: string; dead: string; inserted: string }>(`SELECT relname, changed, dead, inserted FROM ${db.schema}.${COUNTS_TABLE}`);
  return new Map(rows.map((r) => [r.relname, { changed: Number(r.changed), dead: Number(r.dead), inserted: Number(r.inserted) }]));
}

interface TableCounters extends TableActivity {
  name: string;
}

/** Each table's counters in this process (forced out first: they leave a backend at most once a
 *  second, so a pass sees every change made before it). Not the upkeep's own: its few rows are
 *  updated in place, and the page's own pruning keeps it one page. Read from `pg_class`, not the
 *  `pg_stat_user_tables` view, which joins every relation of the database first
 *  (docs/decisions/database-upkeep.md#what-a-pass-holds). */
async function readCounters(db: Database): Promise<TableCounters[]> {
  await db.query('SELECT pg_stat_force_next_flush()');
  const { rows } = await db.query<{ name: string; reltuples: number; bytes: string; dead: string; changed: string; inserted: string; xid_age: string }>(
    `SELECT c.relname AS name, c.reltuples, pg_relation_size(c.oid) AS bytes, pg_stat_get_dead_tuples(c.oid) AS dead,
            pg_stat_get_mod_since_analyze(c.oid) AS changed, pg_stat_get_ins_since_vacuum(c.oid) AS inserted, age(c.relfrozenxid) AS xid_age
       FROM pg_class c
      WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND c.relkind IN ('r', 'm', 'p') AND c.relname <> $2 ORDER BY c.relname`,
    [db.schema, COUNTS_TABLE],
  );
  return rows.map((t) => ({ name: t.name, reltuples: Number(t.reltuples), bytes: Number(t.bytes), deadRows: Number(t.dead), changedSinceAnalyze: Number(t.changed), insertedSinceVacuum: Number(t.inserted), xidAge: Number(t.xid_age) }));
}

/** Writes down, for the next process, what `carried` holds plus this process's counts since. */
async function keepCounts(db: Database, carried: Map<string, Counts>, tables: TableCounters[]): Promise<void> {
  const kept = tables.map((t) => {
    const c = carried.get(t.name) ?? NONE;
    return { name: t.name, changed: c.changed + t.changedSinceAnalyze, dead: c.dead + t.deadRows, inserted: c.inserted + t.insertedSinceVacuum };
  });
  await db.query(
    `INSERT INTO ${db.schema}.${COUNTS_TABLE} (relname, changed, dead, inserted)
     SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[])
     ON CONFLICT (relname) DO UPDATE SET changed = EXCLUDED.changed, dead = EXCLUDED.dead, inserted = EXCLUDED.inserted
      WHERE (${COUNTS_TABLE}.changed, ${COUNTS_TABLE}.dead, ${COUNTS_TABLE}.inserted) IS DISTINCT FROM (EXCLUDED.changed, EXCLUDED.dead, EXCLUDED.inserted)`,
    [kept.map((k) => k.name), kept.map((k) => k.changed), kept.map((k) => k.dead), kept.map((k) => k.inserted)],
  );
}

/**
 * One pass over the database's schema: each table autovacuum would take now gets its statement
 * (told to `ran` with how long it held the connection),
 * one at a time, yielding between them so that on PGlite (one connection for every service of the
 * process) requests take their turn. A table nobody changed costs nothing but the counters' read.
 * With `carried` (the counts earlier processes left, see COUNTS_TABLE) a table's counts are its
 * own plus those, a table without them is `unknown` to upkeepFor, and the counts are written down
 * again after the pass. Returns the tables done.
 */
export async function upkeepPass(db: Database, carried?: Map<string, Counts>, ran?: Ran): Promise<number> {
  const tables = await readCounters(db);
  let done = 0;
  for (const t of tables) {
    const before = carried?.get(t.name);
    const c = before ?? NONE;
    const statement = upkeepFor({ ...t, deadRows: t.deadRows + c.dead, changedSinceAnalyze: t.changedSinceAnalyze + c.changed, insertedSinceVacuum: t.insertedSinceVacuum + c.inserted }, carried !== undefined && before === undefined);
    if (statement) {
      // VACUUM and ANALYZE as statements of their own, with a turn for requests between: on PGlite
      // the one connection is held for the longer of the two, not for both (autovacuum's worker too
      // vacuums a table, then analyses it).
      for (const part of statement === 'VACUUM (ANALYZE)' ? (['VACUUM', 'ANALYZE'] as const) : [statement]) {
        await timed(db, `${part} ${db.schema}."${t.name.replaceAll('"', '""')}"`, ran, part, t.name);
        await yieldToEventLoop();
      }
      done++;
    }
    // What the statement acted on is consumed, here as in this process's counters (reset by it).
    const vacuumed = statement?.startsWith('VACUUM') ?? false;
    const analysed = statement?.includes('ANALYZE') ?? false;
    carried?.set(t.name, { changed: analysed ? 0 : c.changed, dead: vacuumed ? 0 : c.dead, inserted: vacuumed ? 0 : c.inserted });
    if (vacuumed) Object.assign(t, { deadRows: 0, insertedSinceVacuum: 0 });
    if (analysed) t.changedSinceAnalyze = 0;
  }
  if (carried) await keepCounts(db, carried, tables);
  return done;
}

/** The checkpointer's pace (`checkpoint_timeout` at its default), and WAL enough for a
 *  checkpoint sooner, sized for the embedded mode's laptop rather than a server's 1 GB. */
const CHECKPOINT_AFTER_S = 300;
const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;
/** WAL past the last checkpoint's own record that counts as writes since it (a pass's ANALYZE writes some). */
const WRITTEN_SINCE_BYTES = 8192;

/** Whether a checkpoint is due: WAL enough since the last, or its age with anything written since. */
export function checkpointDue(t: { walSinceCheckpoint: number; secondsSinceCheckpoint: number }): boolean {
  return t.walSinceCheckpoint >= CHECKPOINT_WAL_BYTES || (t.secondsSinceCheckpoint >= CHECKPOINT_AFTER_S && t.walSinceCheckpoint > WRITTEN_SINCE_BYTES);
}

/**
 * `CHECKPOINT` when one is due; whether it ran. It writes what shared buffers hold (16 MB in the
 * embedded mode), after which the WAL before it is recycled and a restart after a crash replays
 * only what came after.
 */
export async function checkpointIfDue(db: Database, ran?: Ran): Promise<boolean> {
  const { rows } = await db.query<{ since: string; age: string }>(
    `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), checkpoint_lsn) AS since,
            extract(epoch FROM now() - checkpoint_time) AS age
       FROM pg_control_checkpoint()`,
  );
  if (!checkpointDue({ walSinceCheckpoint: Number(rows[0]!.since), secondsSinceCheckpoint: Number(rows[0]!.age) })) return false;
  await timed(db, 'CHECKPOINT', ran, 'CHECKPOINT');
  return true;
}

export interface UpkeepOptions {
  everyMs?: number;
  firstAfterMs?: number;
  /** Told once at start when the server's own upkeep is off, and of a failed pass. */
  warn: (fields: Record<string, unknown>, message: string) => void;
  /** Told each statement a pass ran on PGlite, with how long it held the one connection every
   *  request of the process waits for (Postgres' `log_autovacuum_min_duration` says the same of
   *  autovacuum's work). */
  info?: (fields: Record<string, unknown>, message: string) => void;
}

/**
 * The embedded database's upkeep loop; on Postgres none (autovacuum and checkpoints are the server's), only a
 * warning when the server has autovacuum off, which leaves plans to guesses and pruned rows'
 * room unused there too (docs/operating.md#postgres).
 */
export async function startUpkeep(db: Database, opts: UpkeepOptions): Promise<PruneLoop | undefined> {
  if (db.kind === 'postgres') {
    const { rows } = await db.query<{ autovacuum: string }>(`SELECT current_setting('autovacuum') AS autovacuum`);
    if (rows[0]?.autovacuum !== 'on') {
      opts.warn(
        { schema: db.schema, autovacuum: rows[0]?.autovacuum },
        'Postgres has autovacuum off: tables are analysed and vacuumed only when you run ANALYZE and VACUUM yourself (docs/operating.md#postgres)',
      );
    }
    return undefined;
  }
  const carried = await carriedCounts(db);
  const ran: Ran = (statement, ms, table) => opts.info?.({ schema: db.schema, table, statement, duration_ms: Math.round(ms) }, 'embedded database upkeep');
  const loop = startPruneLoop({
    everyMs: opts.everyMs ?? UPKEEP_EVERY_MS,
    firstAfterMs: opts.firstAfterMs,
    pass: async () => (await upkeepPass(db, carried, ran)) + Number(await checkpointIfDue(db, ran)),
    onError: (err) => opts.warn({ err, schema: db.schema }, 'embedded database upkeep failed; the next pass tries again'),
  });
  return {
    runNow: loop.runNow,
    async stop() {
      await loop.stop();
      // What changed since the last pass, for the next process (a crash loses at most a pass's
      // worth, as Postgres discards its statistics after a crash).
      await keepCounts(db, carried, await readCounters(db)).catch((err: unknown) => opts.warn({ err, schema: db.schema }, 'embedded database upkeep could not keep its counts'));
    },
  };
}
