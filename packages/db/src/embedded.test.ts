import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { holdsDatabase, migrate, openDatabase, shareEmbeddedDatabase, type Database } from './index.js';

// Each service's own migrations, with the same table names, as two services would have.
const counters = [{ version: 1, name: 'counters', sql: "CREATE TABLE counters (name text PRIMARY KEY, value integer NOT NULL);\nINSERT INTO counters VALUES ('a', 0);" }];

describe('one embedded database shared by two services', () => {
  let root: string;
  let sharing: ReturnType<typeof shareEmbeddedDatabase>;
  let accounts: Database;
  let webhooks: Database;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'pglite-shared-'));
    sharing = shareEmbeddedDatabase(path.join(root, 'db', 'shared'));
    // Each service still names a directory of its own; shared, nothing is made there.
    accounts = await openDatabase({ dataDir: path.join(root, 'db', 'accounts'), schema: 'accounts' });
    webhooks = await openDatabase({ dataDir: path.join(root, 'db', 'webhooks'), schema: 'webhooks' });
    expect(await migrate(accounts, counters)).toEqual([1]);
    expect(await migrate(webhooks, counters)).toEqual([1]);
  });
  afterAll(async () => {
    await accounts.close();
    await webhooks.close();
    await sharing.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('when both services open their schema, then there is one database on disk, owner-only', () => {
    expect(holdsDatabase(path.join(root, 'db', 'shared'))).toBe(true);
    expect(holdsDatabase(path.join(root, 'db', 'accounts'))).toBe(false);
    expect(statSync(path.join(root, 'db', 'shared')).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(root, 'db', 'shared', 'PG_VERSION')).mode & 0o777).toBe(0o600);
  });

  it('when thousands of statements are queued at once, then the event loop still gets turns between them', async () => {
    // A queue that ran to its end in one task would hold every request of the process
    // (docs/decisions/many-refs-push.md#yielding); each statement's answer is a task of its own.
    let done = 0;
    let doneWhenTimerRan: number | undefined;
    setTimeout(() => (doneWhenTimerRan = done), 0);
    await Promise.all(Array.from({ length: 1000 }, () => accounts.query('SELECT value FROM counters').then(() => done++)));
    expect(done).toBe(1000);
    expect(doneWhenTimerRan).toBeLessThan(1000);
  });

  it('when one statement runs for a long time, then timers still run on time meanwhile', async () => {
    // PGlite runs on a thread of its own (pglite-thread.ts): a long statement (a VACUUM after
    // retention, docs/embedded-mode.md#a-thread-for-the-database) holds the database, not the process.
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const { rows } = await accounts.query<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, 3000000)');
    const took = performance.now() - started;
    clearInterval(timer);
    longestGap = Math.max(longestGap, performance.now() - last);
    expect(rows).toEqual([{ n: 3000000 }]);
    expect(took).toBeGreaterThan(150);
    expect(longestGap).toBeLessThan(took / 2);
  });

  it('when a statement fails, then its error keeps what Postgres said of it', async () => {
    const failed = await accounts.query("INSERT INTO counters VALUES ('a', 1)").catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ code: '23505', constraint: 'counters_pkey', table: 'counters', message: expect.stringContaining('duplicate key') });
  });

  it('when a transaction goes on after a failed statement, then its commit fails and nothing of it remains', async () => {
    // Postgres ends such a COMMIT as a ROLLBACK; PGlite's transaction() reports it, so must its thread.
    const committed = await accounts
      .transaction(async (tx) => {
        await tx.query("INSERT INTO counters VALUES ('b', 1)");
        await tx.query("INSERT INTO counters VALUES ('a', 1)").catch(() => undefined);
      })
      .then(() => 'committed', (err: Error) => err.message);
    expect(committed).not.toBe('committed');
    expect((await accounts.query("SELECT name FROM counters WHERE name = 'b'")).rows).toEqual([]);
    expect((await accounts.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('when each service writes its own unqualified table, then each reads only its own rows', async () => {
    await accounts.query('UPDATE counters SET value = 7');
    await webhooks.query('UPDATE counters SET value = 3');
    const [a, w] = await Promise.all([accounts.query<{ value: number }>('SELECT value FROM counters'), webhooks.query<{ value: number }>('SELECT value FROM counters')]);
    expect(a.rows).toEqual([{ value: 7 }]);
    expect(w.rows).toEqual([{ value: 3 }]);
    const { rows } = await accounts.query<{ table_schema: string }>("SELECT table_schema FROM information_schema.tables WHERE table_name = 'counters' ORDER BY 1");
    expect(rows.map((r) => r.table_schema)).toEqual(['accounts', 'webhooks']);
  });

  it('when statements of both services are queued at once, then each runs in its own schema', async () => {
    // Statements outside a transaction are sent without waiting for the ones before them
    // (embedded.ts, pipelined); each carries its schema, set by the thread when it changes.
    const asked = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? accounts : webhooks));
    const answers = await Promise.all(asked.map((db) => db.query<{ schema: string }>('SELECT current_schema() AS schema').then((r) => r.rows[0]!.schema)));
    expect(answers).toEqual(asked.map((db) => db.schema));
  });

  it('when the two services run transactions at once, then none interleaves and each stays in its schema', async () => {
    await accounts.query('UPDATE counters SET value = 0');
    await webhooks.query('UPDATE counters SET value = 0');
    const seen: string[] = [];
    const bump = (db: Database, name: string) =>
      db.transaction(async (tx) => {
        seen.push(`${name} begin`);
        const { rows } = await tx.query<{ value: number; schema: string }>('SELECT value, current_schema() AS schema FROM counters FOR UPDATE');
        // The other service's work is queued right now; it must not run inside this transaction.
        await new Promise((resolve) => setImmediate(resolve));
        await tx.query('UPDATE counters SET value = $1', [rows[0]!.value + 1]);
        seen.push(`${name} end`);
        return rows[0]!.schema;
      });
    const schemas = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? bump(accounts, 'accounts') : bump(webhooks, 'webhooks'))));
    expect(schemas).toEqual(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'accounts' : 'webhooks')));
    for (let i = 0; i < seen.length; i += 2) expect(seen[i]!.replace(' begin', ' end')).toBe(seen[i + 1]);
    expect((await accounts.query<{ value: number }>('SELECT value FROM counters')).rows).toEqual([{ value: 5 }]);
    expect((await webhooks.query<{ value: number }>('SELECT value FROM counters')).rows).toEqual([{ value: 5 }]);
  });

  it("when one service's transaction rolls back, then the other's next query still runs in its own schema", async () => {
    await expect(
      accounts.transaction(async (tx) => {
        await tx.query('UPDATE counters SET value = 100');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await webhooks.query<{ schema: string }>('SELECT current_schema() AS schema')).rows).toEqual([{ schema: 'webhooks' }]);
    expect((await accounts.query<{ value: number }>('SELECT value FROM counters')).rows).toEqual([{ value: 5 }]);
  });

  it('when a service closes its database, then the other keeps working', async () => {
    const browse = await openDatabase({ dataDir: path.join(root, 'db', 'browse'), schema: 'browse' });
    await browse.close();
    expect(await webhooks.ping()).toBe(true);
    await expect(openDatabase({ dataDir: path.join(root, 'db', 'webhooks-again'), schema: 'webhooks' })).rejects.toThrow('already open');
  });
});

describe('a service directory holding a database of its own from before', () => {
  it('when the database is shared, then that service keeps its own data', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'pglite-legacy-'));
    try {
      const own = await openDatabase({ dataDir: path.join(root, 'db', 'accounts'), schema: 'accounts' });
      await migrate(own, counters);
      await own.query('UPDATE counters SET value = 42');
      await own.close();
      const sharing = shareEmbeddedDatabase(path.join(root, 'db', 'shared'));
      try {
        const reopened = await openDatabase({ dataDir: path.join(root, 'db', 'accounts'), schema: 'accounts' });
        expect((await reopened.query<{ value: number }>('SELECT value FROM counters')).rows).toEqual([{ value: 42 }]);
        await reopened.close();
      } finally {
        await sharing.close();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
