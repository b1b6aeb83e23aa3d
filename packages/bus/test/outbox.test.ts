import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, migrate, openDatabase, type Database } from '@githost/db';
import { InProcessEventBus, OUTBOX_MIGRATION_SQL, enqueueEvent, startOutboxRelay, type Relay } from '../src/index.js';
import { waitFor } from '@githost/test-support';
import { makeEvent } from './events.js';

// The same outbox SQL on real Postgres and on PGlite (CONTRACT §2).
for (const kind of ['postgres', 'pglite'] as const) {
  describe(`outbox relay on ${kind}`, () => {
    let db: Database;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      if (kind === 'postgres') {
        const t = await createTestDatabase('githost_bus_test');
        db = await openDatabase({ url: t.url, schema: 'svc' });
        cleanup = async () => {
          await db.close();
          await t.drop();
        };
      } else {
        const dir = mkdtempSync(path.join(tmpdir(), 'bus-pglite-'));
        db = await openDatabase({ dataDir: dir, schema: 'svc' });
        cleanup = async () => {
          await db.close();
          rmSync(dir, { recursive: true, force: true });
        };
      }
      await migrate(db, [{ version: 1, name: 'outbox', sql: OUTBOX_MIGRATION_SQL }]);
    });
    afterAll(() => cleanup());

    const received = (bus: InProcessEventBus, queue: string, opts: { down?: () => boolean } = {}) => {
      const got: number[] = [];
      void bus.subscribe(
        queue,
        ['push'],
        async (e) => {
          if (opts.down?.()) throw new Error('broker unreachable');
          got.push((e.payload as { n: number }).n);
        },
        { maxRedeliveries: 1000 },
      );
      return got;
    };

    it('when events are enqueued in a rolled-back and a committed transaction, then only the committed ones are published, once, in order', async () => {
      await db.query('DELETE FROM outbox');
      const bus = new InProcessEventBus();
      const got = received(bus, 'q1');
      await expect(
        db.transaction(async (tx) => {
          await enqueueEvent(tx, makeEvent(100));
          throw new Error('state change failed');
        }),
      ).rejects.toThrow('state change failed');
      await db.transaction(async (tx) => {
        for (let n = 1; n <= 5; n++) await enqueueEvent(tx, makeEvent(n));
      });
      const relay = startOutboxRelay({ db, bus, intervalMs: 50, batchSize: 2 });
      try {
        relay.kick();
        await waitFor(async () => (await relay.backlog()) === 0, 'outbox drained');
        relay.kick();
        relay.kick();
        await waitFor(() => got.length >= 5, 'five events');
      } finally {
        await relay.stop();
      }
      expect(got).toEqual([1, 2, 3, 4, 5]);
      const rows = await db.query<{ published: boolean }>('SELECT published_at IS NOT NULL AS published FROM outbox');
      expect(rows.rows.map((r) => r.published)).toEqual([true, true, true, true, true]);
    });

    it('when the bus fails, then events stay pending with attempts and the error recorded, and are published once it works', async () => {
      await db.query('DELETE FROM outbox');
      const bus = new InProcessEventBus();
      let down = true;
      const got = received(bus, 'q2', { down: () => down });
      await db.transaction(async (tx) => {
        await enqueueEvent(tx, makeEvent(1));
        await enqueueEvent(tx, makeEvent(2));
      });
      const relay = startOutboxRelay({ db, bus, intervalMs: 20 });
      try {
        await waitFor(async () => {
          const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM outbox ORDER BY seq LIMIT 1');
          return (rows[0]?.attempts ?? 0) >= 2;
        }, 'two failed attempts');
        expect(await relay.backlog()).toBe(2);
        const { rows } = await db.query<{ last_error: string; published_at: unknown }>('SELECT last_error, published_at FROM outbox ORDER BY seq');
        expect(rows[0]!.last_error).toContain('broker unreachable');
        expect(rows.map((r) => r.published_at)).toEqual([null, null]);
        expect(got).toEqual([]);
        down = false;
        relay.kick();
        await waitFor(async () => (await relay.backlog()) === 0, 'outbox drained');
      } finally {
        await relay.stop();
      }
      expect(got).toEqual([1, 2]);
    });

    it('when two relays run on one outbox, then every event is published exactly once', async () => {
      await db.query('DELETE FROM outbox');
      const bus = new InProcessEventBus();
      const got = received(bus, 'q3');
      await db.transaction(async (tx) => {
        for (let n = 1; n <= 40; n++) await enqueueEvent(tx, makeEvent(n));
      });
      const relays: Relay[] = [startOutboxRelay({ db, bus, intervalMs: 10, batchSize: 3 }), startOutboxRelay({ db, bus, intervalMs: 10, batchSize: 3 })];
      try {
        await waitFor(async () => (await relays[0]!.backlog()) === 0, 'outbox drained');
      } finally {
        await Promise.all(relays.map((r) => r.stop()));
      }
      expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });
  });
}
