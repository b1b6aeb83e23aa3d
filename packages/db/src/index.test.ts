import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, migrate, openDatabase, openServiceDatabase, splitStatements, type Database } from './index.js';

const execFileAsync = promisify(execFile);

const migrations = [
  { version: 1, name: 'counters', sql: 'CREATE TABLE counters (name text PRIMARY KEY, value integer NOT NULL);\nINSERT INTO counters VALUES (\'a\', 0);' },
  { version: 2, name: 'notes', sql: 'CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);' },
];

// The same behaviour on real Postgres and on PGlite (CONTRACT §2: same SQL on both).
for (const kind of ['postgres', 'pglite'] as const) {
  describe(`database on ${kind}`, () => {
    let db: Database;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      if (kind === 'postgres') {
        const t = await createTestDatabase();
        db = await openDatabase({ url: t.url, schema: 'svc' });
        cleanup = async () => {
          await db.close();
          await t.drop();
        };
      } else {
        const dir = mkdtempSync(path.join(tmpdir(), 'pglite-'));
        db = await openDatabase({ dataDir: dir, schema: 'svc' });
        cleanup = async () => {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        };
      }
    });
    afterAll(() => cleanup());

    it('when migrations run twice, then each applies once', async () => {
      expect(await migrate(db, migrations)).toEqual([1, 2]);
      expect(await migrate(db, migrations)).toEqual([]);
      expect((await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version)).toEqual([1, 2]);
    });

    it('when a transaction throws, then nothing it wrote remains', async () => {
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO notes (body) VALUES ($1)', ['lost']);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await db.query('SELECT * FROM notes WHERE body = $1', ['lost'])).rows).toEqual([]);
    });

    it('when 20 transactions increment one row at once, then none is lost', async () => {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction(async (tx) => {
            const { rows } = await tx.query<{ value: number }>('SELECT value FROM counters WHERE name = $1 FOR UPDATE', ['a']);
            await tx.query('UPDATE counters SET value = $1 WHERE name = $2', [rows[0]!.value + 1, 'a']);
          }),
        ),
      );
      expect((await db.query<{ value: number }>('SELECT value FROM counters')).rows[0]!.value).toBe(20);
    });

    it('when tables are created, then they live in the service schema', async () => {
      const { rows } = await db.query<{ table_schema: string }>("SELECT table_schema FROM information_schema.tables WHERE table_name = 'notes'");
      expect(rows.map((r) => r.table_schema)).toEqual(['svc']);
      expect(await db.ping()).toBe(true);
    });
  });
}

describe('openServiceDatabase', () => {
  it('when a migration fails at start, then the error is thrown, nothing of it is recorded, and the next start migrates', async () => {
    const t = await createTestDatabase();
    const observer = await openDatabase({ url: t.url, schema: 'observer' });
    try {
      const broken = [...migrations, { version: 3, name: 'broken', sql: 'CREATE TABLE notes (id integer);' }];
      await expect(openServiceDatabase({ url: t.url, schema: 'svc', migrations: broken })).rejects.toThrow('already exists');
      expect((await observer.query("SELECT to_regclass('svc.schema_migrations') AS t")).rows[0]).toEqual({ t: null });
      const db = await openServiceDatabase({ url: t.url, schema: 'svc', migrations });
      expect((await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version)).toEqual([1, 2]);
      await db.close();
    } finally {
      await observer.close();
      await t.drop();
    }
  });
});

describe('splitStatements', () => {
  it('when a migration has comments and several statements, then each statement stands alone', () => {
    expect(splitStatements('-- a comment\nCREATE TABLE a (x int);\n\nCREATE INDEX i ON a (x);\n')).toEqual(['CREATE TABLE a (x int)', 'CREATE INDEX i ON a (x)']);
  });

  it('when a statement has a $$-quoted body with statements of its own, then the body stays in it', () => {
    const fn = 'CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  UPDATE t SET n = n + 1;\n  RETURN NULL;\nEND\n$$';
    expect(splitStatements(`CREATE TABLE t (n int);\n${fn};\nCREATE TRIGGER g AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION f();`)).toEqual(['CREATE TABLE t (n int)', fn, 'CREATE TRIGGER g AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION f()']);
  });
});

// In its own process: an unhandled pg 'error' event would end that process, which jest would not notice.
const SCENARIO = `
import { openDatabase } from '@githost/db';
const db = await openDatabase({ url: process.env.URL, schema: 'svc', poolSize: 2 });
const killer = await openDatabase({ url: process.env.URL, schema: 'svc', poolSize: 1 });
await db.query('CREATE TABLE IF NOT EXISTS notes (id serial PRIMARY KEY, body text NOT NULL)');
const outcome = await db.transaction(async (tx) => {
  const { rows } = await tx.query('SELECT pg_backend_pid() AS pid');
  await tx.query("INSERT INTO notes (body) VALUES ('lost')");
  await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
  await new Promise((r) => setTimeout(r, 200));
  await tx.query('SELECT 1');
}).then(() => 'committed', (err) => err.kind ?? err.message);
await db.transaction((tx) => tx.query("INSERT INTO notes (body) VALUES ('kept')"));
const bodies = (await db.query('SELECT body FROM notes ORDER BY id')).rows.map((r) => r.body);
console.log(JSON.stringify({ outcome, bodies }));
await killer.close();
await db.close();
`;

describe('a Postgres connection ended inside a transaction', () => {
  it('when Postgres terminates the backend mid-transaction, then the transaction fails as unavailable, the process lives, and the next one commits', async () => {
    const t = await createTestDatabase();
    try {
      const { stdout } = await execFileAsync(process.execPath, ['--input-type=module', '-e', SCENARIO], {
        env: { ...process.env, URL: t.url, NODE_OPTIONS: '' },
        cwd: path.dirname(fileURLToPath(import.meta.url)),
      });
      expect(JSON.parse(stdout)).toEqual({ outcome: 'unavailable', bodies: ['kept'] });
    } finally {
      await t.drop();
    }
  });
});
