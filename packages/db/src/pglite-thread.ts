import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { unavailable } from '@githost/errors';

const require = createRequire(import.meta.url);

/** What the thread answers a statement with: PGlite's rows, and its count of affected rows. */
export interface ThreadResult<T> {
  rows: T[];
  rowCount: number;
}

/** `schema`: the search_path a statement outside a transaction (or a BEGIN) runs with; set first when it differs. */
type Op = { op: 'query'; sql: string; params?: unknown[]; schema?: string } | { op: 'exec'; sql: string } | { op: 'begin'; schema: string } | { op: 'commit' | 'rollback' | 'close' };
type Reply = { id: number; result?: ThreadResult<unknown> } | { id: number; error: Record<string, unknown> & { message: string } };

/**
 * Run by the worker (eval'd, so it needs no file of its own wherever this module is loaded from:
 * dist, or the sources under jest). workerData: { url: the PGlite module, options }. Statements
 * run one at a time in the order they came; an error goes back as its own properties
 * (Postgres' `code`, `constraint`, ...), which a structured clone of an Error would drop.
 */
const THREAD_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const errorOf = (err) => {
  const props = {};
  if (err && typeof err === 'object') for (const key of Object.keys(err)) {
    const value = err[key];
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) props[key] = value;
  }
  return { ...props, message: String((err && err.message) || err) };
};
(async () => {
  const { PGlite } = await import(workerData.url);
  let db;
  try {
    db = new PGlite(workerData.options);
    await db.waitReady;
  } catch (err) {
    parentPort.postMessage({ id: 0, error: errorOf(err) });
    return;
  }
  const none = { rows: [], rowCount: 0 };
  parentPort.postMessage({ id: 0, result: none });
  // The open transaction: PGlite's own transaction(), held open between messages, so BEGIN,
  // COMMIT (a COMMIT that Postgres turned into a ROLLBACK fails) and ROLLBACK are PGlite's.
  let tx, end, ended;
  const rolledBack = Symbol('rollback');
  // Set outside a transaction only, where no rollback undoes it; a failed SET fails the statement.
  let searchPath;
  const useSchema = async (schema) => {
    if (schema === undefined || tx || schema === searchPath) return;
    await db.exec('SET search_path TO ' + schema);
    searchPath = schema;
  };
  const handle = async (req) => {
    const on = tx ?? db;
    switch (req.op) {
      case 'query': {
        await useSchema(req.schema);
        const r = await on.query(req.sql, req.params);
        return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
      }
      case 'exec':
        await on.exec(req.sql);
        return none;
      case 'begin':
        await useSchema(req.schema);
        await new Promise((begun, failed) => {
          ended = db.transaction((t) => {
            tx = t;
            begun();
            return new Promise((commit, rollback) => (end = { commit, rollback }));
          });
          ended.catch(failed);
        });
        return none;
      case 'commit':
      case 'rollback':
        if (req.op === 'commit') end.commit();
        else end.rollback(rolledBack);
        try {
          await ended;
        } catch (err) {
          if (err !== rolledBack) throw err;
        } finally {
          tx = end = ended = undefined;
        }
        return none;
      default:
        await db.close();
        return none;
    }
  };
  // In the order they came, each after the last has answered.
  let last = Promise.resolve();
  parentPort.on('message', (req) => {
    last = last.then(async () => {
      try {
        parentPort.postMessage({ id: req.id, result: await handle(req) });
      } catch (err) {
        parentPort.postMessage({ id: req.id, error: errorOf(err) });
      }
      if (req.op === 'close') parentPort.close();
    });
  });
})();
`;

/**
 * A row whose timestamps are this module's realm's Dates. A message arrives in Node's main realm;
 * where this module runs in another (jest's vm context), `value instanceof Date` (rows.ts' `iso`)
 * would be false for them, as it never was for PGlite's own Dates. In the main realm nothing changes.
 */
function ownDates(row: unknown): unknown {
  if (typeof row !== 'object' || row === null) return row;
  const fields = row as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (typeof value === 'object' && value !== null && !(value instanceof Date) && Object.prototype.toString.call(value) === '[object Date]') fields[key] = new Date((value as Date).getTime());
  }
  return row;
}

/**
 * PGlite on a thread of its own (docs/embedded-mode.md#a-thread-for-the-database). Postgres in
 * WASM runs each statement synchronously: on the event loop every request of the embedded mode
 * shares, one long statement (the upkeep's VACUUM of a table retention just pruned, 0.7-1.1 s at
 * a million rows) held git, the edge's warm reads and `/healthz` with it. Here a statement holds
 * only the database: requests that need it still wait their turn, as they would for a server's
 * one connection, and the rest of the process runs meanwhile on another core.
 */
export class PgliteThread {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (r: ThreadResult<unknown>) => void; reject: (err: Error) => void }>();
  /** Set once the thread is gone (closed, or died): every later statement fails with it. */
  private gone: Error | undefined;

  private constructor(private readonly worker: Worker) {
    // An idle database does not keep the process alive (PGlite on the main thread did not).
    worker.unref();
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (err) => this.fail(unavailable('Database unavailable: the embedded database thread failed', err)));
    worker.on('exit', (code) => this.fail(unavailable(`Database unavailable: the embedded database thread ended (exit code ${code})`)));
  }

  /** Starts the thread and opens PGlite there with `options` (dataDir, startParams). */
  static async start(options: { dataDir?: string; startParams: readonly string[] }): Promise<PgliteThread> {
    const url = pathToFileURL(require.resolve('@electric-sql/pglite')).href;
    const worker = new Worker(THREAD_SCRIPT, { eval: true, workerData: { url, options: { ...options, startParams: [...options.startParams] } } });
    const thread = new PgliteThread(worker);
    try {
      await thread.request(0);
    } catch (err) {
      await worker.terminate();
      throw err;
    }
    return thread;
  }

  /** `schema`: outside a transaction, the search_path to run it with (ignored inside one). */
  query<T>(sql: string, params?: unknown[], schema?: string): Promise<ThreadResult<T>> {
    return this.send({ op: 'query', sql, params, schema }) as Promise<ThreadResult<T>>;
  }

  async exec(sql: string): Promise<void> {
    await this.send({ op: 'exec', sql });
  }

  /** Until commit() or rollback(), every statement runs in this one transaction, with `schema` as its search_path. */
  async begin(schema: string): Promise<void> {
    await this.send({ op: 'begin', schema });
  }

  /** Fails (and the transaction is gone) when Postgres rolled it back instead, as PGlite's transaction() does. */
  async commit(): Promise<void> {
    await this.send({ op: 'commit' });
  }

  async rollback(): Promise<void> {
    await this.send({ op: 'rollback' });
  }

  /** Closes PGlite (a clean shutdown, as the main thread's close() was) and ends the thread. */
  async close(): Promise<void> {
    if (this.gone) return;
    await this.send({ op: 'close' });
    this.gone = new Error('the embedded database is closed');
    await this.worker.terminate();
  }

  private send(req: Op): Promise<ThreadResult<unknown>> {
    if (this.gone) return Promise.reject(this.gone);
    const id = this.next++;
    const answer = this.request(id);
    try {
      this.worker.postMessage({ ...req, id });
    } catch (err) {
      // A value the structured clone cannot carry: nothing was sent, so nothing is waited for.
      this.settle({ id, error: { message: `the embedded database cannot take this statement: ${(err as Error).message}` } });
    }
    return answer;
  }

  private request(id: number): Promise<ThreadResult<unknown>> {
    // While a statement is out, the thread holds the process open as a socket would.
    if (this.pending.size === 0) this.worker.ref();
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private settle(reply: Reply): void {
    const waiter = this.pending.get(reply.id);
    if (!waiter) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in reply) waiter.reject(Object.assign(new Error(reply.error.message), reply.error));
    else waiter.resolve(reply.result ? { rows: reply.result.rows.map(ownDates), rowCount: reply.result.rowCount } : { rows: [], rowCount: 0 });
  }

  private fail(err: Error): void {
    this.gone ??= err;
    for (const waiter of this.pending.values()) waiter.reject(err);
    this.pending.clear();
  }
}
