import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { unavailable } from '@githost/errors';
import { EmbeddedPostgres, sharedEmbeddedDatabase } from './embedded.js';
import { holdsDatabase } from './initdb.js';
import { startUpkeep, type UpkeepOptions } from './upkeep.js';

export { EmbeddedPostgres, shareEmbeddedDatabase } from './embedded.js';
export { holdsDatabase } from './initdb.js';
export { GroupCommit, type GroupCommitOptions } from './group-commit.js';
export { deleteInBatches, startPruneLoop, type PruneLoop } from './prune.js';
export type { UpkeepOptions } from './upkeep.js';
export { iso, isoOrNull } from './timestamps.js';
export { keysetPage, type KeysetList, type KeysetPage, type PageKey, type PageRequest, type PageStart } from './keyset.js';

/**
 * One small interface over real Postgres (`pg`) and embedded Postgres (PGlite), so every service
 * runs the same SQL on both. Each service owns one schema (CONTRACT §1: no service reads
 * another's tables); the schema is the search_path, so SQL stays unqualified. In the embedded mode
 * every service's schema lives in one PGlite (./embedded.ts).
 */
export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  readonly schema: string;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws.
   *  Inside, use only `tx`; calling the outer database from `fn` would wait forever on PGlite. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string;
  /** PGlite directory; absent (with no url) means in-memory. */
  dataDir?: string;
  /** The service's schema, e.g. `accounts`. */
  schema: string;
  /** pg pool size. */
  poolSize?: number;
}

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (!SCHEMA_RE.test(opts.schema)) throw new Error(`invalid schema name: ${opts.schema}`);
  return opts.url ? openPostgres(opts.url, opts.schema, opts.poolSize ?? 10) : openPglite(opts.dataDir, opts.schema);
}

/** Connection failures are `unavailable` (503), never a half-written 500 (CONTRACT §4). */
function wrapConnectionError(err: unknown): unknown {
  const code = (err as { code?: string })?.code;
  if (code && (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', '57P01', '57P03', '08006', '08001'].includes(code))) {
    return unavailable('Database unavailable', err);
  }
  return err;
}

async function openPostgres(url: string, schema: string, max: number): Promise<Database> {
  const bootstrap = new pg.Client({ connectionString: url });
  await bootstrap.connect().catch((err) => {
    throw wrapConnectionError(err);
  });
  try {
    await bootstrap.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (err) {
    // Two processes creating the schema at once: one loses the race with a unique violation.
    if ((err as { code?: string }).code !== '23505') throw err;
  } finally {
    await bootstrap.end();
  }
  const pool = new pg.Pool({ connectionString: url, max, options: `-c search_path=${schema}` });
  pool.on('error', () => undefined); // an idle client's broken connection is replaced on next use
  // Every client listens for its own 'error' from birth: a connection that Postgres ends (restart,
  // terminated backend) while a client is checked out, or just after it was released broken,
  // would otherwise be an unhandled 'error' and end the process. What it heard marks it broken.
  const brokenClients = new WeakMap<pg.PoolClient, Error>();
  pool.on('connect', (client) => {
    client.on('error', (err) => brokenClients.set(client as pg.PoolClient, err));
  });
  const run = async <T>(q: pg.Pool | pg.PoolClient, sql: string, params?: unknown[]): Promise<QueryResult<T>> => {
    try {
      const r = await q.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    } catch (err) {
      throw wrapConnectionError(err);
    }
  };
  return {
    kind: 'postgres',
    schema,
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      const client = await pool.connect().catch((err) => {
        throw wrapConnectionError(err);
      });
      let rollbackFailed: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await fn({ query: (sql, params) => run(client, sql, params) });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: Error) => {
          rollbackFailed = rollbackErr;
        });
        throw brokenClients.has(client) || rollbackFailed ? unavailable('Database unavailable', err) : wrapConnectionError(err);
      } finally {
        // A broken client is destroyed instead of going back to the pool.
        client.release(brokenClients.get(client) ?? rollbackFailed ?? false);
      }
    },
    ping: () => pool.query('SELECT 1').then(() => true, () => false),
    close: () => pool.end(),
  };
}

/**
 * PGlite: the embedded database shared by every service of the process when there is one
 * (shareEmbeddedDatabase next to `dataDir`, the launcher's embedded mode), else one of its own in
 * `dataDir` (in memory without one).
 */
async function openPglite(dataDir: string | undefined, schema: string): Promise<Database> {
  const sharedInstance = dataDir && !holdsDatabase(dataDir) ? sharedEmbeddedDatabase(dataDir) : undefined;
  if (sharedInstance) return (await sharedInstance).database(schema);
  const own = await EmbeddedPostgres.open(dataDir);
  try {
    return await own.database(schema, () => own.close());
  } catch (err) {
    await own.close();
    throw err;
  }
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Applies versioned plain-SQL migrations in order, each in its own transaction with its record,
 * under an advisory lock so replicas starting together apply each migration once.
 */
export async function migrate(db: Database, migrations: Migration[]): Promise<number[]> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const applied: number[] = [];
  await db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`githost_migrate_${db.schema}`]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)));
    for (const m of sorted) {
      if (done.has(m.version)) continue;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
  });
  return applied;
}

/**
 * A service's database at start: opened (Postgres when `url` is set, PGlite in `dataDir`
 * otherwise) and migrated to `migrations`; with `upkeep`, kept up as a server's autovacuum and
 * checkpointer would (./upkeep.ts), until its close(). When migrating fails the database is closed
 * again, so a service that cannot start holds no pool.
 */
export async function openServiceDatabase(opts: DatabaseOptions & { migrations: Migration[]; upkeep?: UpkeepOptions }): Promise<Database> {
  const { migrations, upkeep: upkeepOptions, ...options } = opts;
  const db = await openDatabase(options);
  try {
    await migrate(db, migrations);
    const upkeep = upkeepOptions && (await startUpkeep(db, upkeepOptions));
    if (!upkeep) return db;
    return {
      ...db,
      close: async () => {
        await upkeep.stop();
        await db.close();
      },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

/** Splits a migration on `;` at line ends (migrations keep one statement per `;`-terminated
 *  block), never inside a `$$`-quoted body (a trigger function's), since parameterised query()
 *  takes one statement. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let quoted = false;
  const ends = /\$\$|;[ \t\r]*(?:\n|$)/g;
  for (let m = ends.exec(sql); m; m = ends.exec(sql)) {
    if (m[0] === '$$') quoted = !quoted;
    else if (!quoted) {
      statements.push(sql.slice(start, m.index));
      start = m.index + m[0].length;
    }
  }
  statements.push(sql.slice(start));
  return statements.map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter((s) => s.length > 0);
}

/**
 * For tests: a fresh, uniquely named database on the real Postgres server (DATABASE_URL or the
 * local default), so runs never collide. `drop()` removes it.
 */
export async function createTestDatabase(prefix = 'githost_test'): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
