import { PGlite } from '@electric-sql/pglite';
import { chmod, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Database, Queryable } from './index.js';
import { initialise } from './initdb.js';
import { PgliteThread } from './pglite-thread.js';

/**
 * Embedded Postgres (PGlite) sized for a laptop (docs/embedded-mode.md): Postgres' server defaults
 * (128 MB shared buffers) live in WASM memory, which never shrinks, for a database of a few MB.
 * `default_statistics_target=10`: a smaller `ANALYZE` sample, which holds the one connection every
 * request waits for (docs/decisions/database-upkeep.md#what-a-pass-holds).
 */
const LAPTOP_SETTINGS = ['shared_buffers=16MB', 'temp_buffers=2MB', 'work_mem=2MB', 'maintenance_work_mem=16MB', 'wal_buffers=1MB', 'default_statistics_target=10'];
export const START_PARAMS = [...PGlite.defaultStartParams, ...LAPTOP_SETTINGS.flatMap((s) => ['-c', s])];

/**
 * PGlite unpacks its initial data directory with the archive's modes (0666 files), whatever the
 * umask: they are narrowed to the owner (0700 directories, 0600 files; docs/operating.md#files-under-data_dir). Files Postgres creates later get its own 0600.
 */
async function ownerOnly(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await ownerOnly(full);
    else if (entry.isFile()) await chmod(full, 0o600);
  }
}

/**
 * One PGlite instance that several services share, each in its own schema, as on Postgres
 * (CONTRACT §1). PGlite is one connection, so:
 * - all work is serialised: a transaction never interleaves with another caller's statements,
 *   whichever service it comes from;
 * - the connection's search_path is the schema of the service whose statement it is: each
 *   statement outside a transaction and each BEGIN carries its schema, and the thread sets it
 *   first when it differs (never inside a transaction, where a rollback would undo it), so
 *   unqualified SQL always resolves in the caller's own schema and never in the previous caller's.
 * A transaction must not wait for another service's database work (e.g. a call into a service
 * that queries its own schema): that work queues behind the transaction and never runs.
 */
export class EmbeddedPostgres {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly schemas = new Set<string>();
  private closed: Promise<void> | undefined;

  private constructor(private readonly db: PgliteThread) {}

  /** Opens (initialising first when needed) the database in `dataDir`; in memory without one. */
  static async open(dataDir?: string): Promise<EmbeddedPostgres> {
    if (dataDir) {
      await initialise(dataDir, START_PARAMS);
      await ownerOnly(dataDir);
    }
    // One options object: PGlite reads a second argument only after a string, so an in-memory
    // database given (undefined, options) ran with the server defaults.
    const db = await PgliteThread.start({ dataDir, startParams: START_PARAMS });
    // Opening writes its relation cache files (`pg_internal.init`) with the FS layer's 0644.
    if (dataDir) await ownerOnly(dataDir);
    return new EmbeddedPostgres(db);
  }

  /** `schema` (created when missing) as one service's database; its close() leaves the instance open. */
  async database(schema: string, onClose: () => Promise<void> = async () => undefined): Promise<Database> {
    if (this.schemas.has(schema)) throw new Error(`schema ${schema} is already open on this embedded database`);
    this.schemas.add(schema);
    await this.exclusive(() => this.db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`));
    const tx: Queryable = { query: (sql, params) => this.db.query(sql, params) };
    let closed = false;
    return {
      kind: 'pglite',
      schema,
      query: (sql, params) => this.pipelined(() => this.db.query(sql, params, schema)),
      transaction: (fn) => this.exclusive(() => this.inTransaction(schema, () => fn(tx))),
      ping: () => this.pipelined(() => this.db.query('SELECT 1', [], schema)).then(() => true, () => false),
      close: async () => {
        if (closed) return;
        closed = true;
        this.schemas.delete(schema);
        await onClose();
      },
    };
  }

  close(): Promise<void> {
    return (this.closed ??= this.exclusive(() => this.db.close()));
  }

  /** `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  private async inTransaction<T>(schema: string, fn: () => Promise<T>): Promise<T> {
    await this.db.begin(schema);
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      await this.db.rollback();
      throw err;
    }
    await this.db.commit();
    return result;
  }

  /**
   * A statement outside a transaction: sent once the work queued before it has been sent, without
   * waiting for its answers. The thread runs its messages in the order they came, each with its
   * schema as the search_path, so the database never waits for a round trip between two such
   * statements (docs/embedded-mode.md#a-thread-for-the-database).
   */
  private pipelined<T>(send: () => Promise<T>): Promise<T> {
    let answer!: Promise<T>;
    const post = () => {
      answer = send();
    };
    const sent = this.tail.then(post, post);
    this.tail = sent;
    return sent.then(() => answer);
  }

  /** Runs `fn` alone on the connection: nothing queued after it is sent until it has finished. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * The embedded mode's one database for every service in the process (docs/embedded-mode.md),
 * e.g. `<DATA_DIR>/db/shared`: while it is shared, openDatabase() without a URL for a service
 * directory next to it (`<DATA_DIR>/db/accounts`) opens the service's schema on it instead of a
 * PGlite of its own, and nothing is made in that directory. A service directory that already
 * holds a database of its own (made before the shared one existed) keeps being opened as it is,
 * so its data is never left behind. Keyed by the parent directory, so two embedded githosts in
 * one process (tests) each share their own.
 */
const shared = new Map<string, Promise<EmbeddedPostgres>>();

export function shareEmbeddedDatabase(dataDir: string): { dataDir: string; close(): Promise<void> } {
  const dir = path.resolve(dataDir);
  const parent = path.dirname(dir);
  if (shared.has(parent)) throw new Error(`an embedded database is already shared in ${parent}`);
  const instance = EmbeddedPostgres.open(dir);
  shared.set(parent, instance);
  // Until the first service opens it, a failed open is reported there, not as an unhandled rejection.
  instance.catch(() => undefined);
  return {
    dataDir: dir,
    async close() {
      if (shared.get(parent) === instance) shared.delete(parent);
      await (await instance.catch(() => undefined))?.close();
    },
  };
}

/** The shared database a service directory belongs to, if any. */
export function sharedEmbeddedDatabase(serviceDir: string): Promise<EmbeddedPostgres> | undefined {
  return shared.get(path.dirname(path.resolve(serviceDir)));
}
