import type { Database, Queryable } from '@githost/db';
import { createLogger, type Logger } from '@githost/logging';
import type { EventBus, EventEnvelope } from './event-bus.js';
import { eventLogFields } from './log-fields.js';
import { runRelayLoop, type Relay } from './relay-loop.js';

/**
 * Transactional outbox (CONTRACT §1 "never lose an event"): a service writes its event with
 * `enqueueEvent(tx, event)` in the SAME transaction as the state change, so the event exists
 * exactly when the change committed; the relay then publishes it and marks it published only
 * after `bus.publish()` resolved (broker confirm). A crash between publish and mark means the
 * event is published again: delivery is at-least-once, consumers de-duplicate on `id`.
 *
 * Relaying without holding a transaction open across the publish: rows are claimed with a short
 * lease (`claimed_until`, taken with FOR UPDATE SKIP LOCKED so replicas never claim the same
 * row), published in (created_at, seq) order, then marked. Holding a transaction instead would
 * block PGlite (one connection) for as long as the broker or an in-process handler takes. A relay
 * that dies mid-pass leaves its claims to expire after `leaseMs`, then another pass takes them.
 *
 * On a failed publish the pass records `attempts`/`last_error` on that row and stops (releasing the
 * rest of its claims): a failure is almost always the broker being away, and stopping keeps the
 * order. Published rows older than `retainMs` are deleted.
 */
export const OUTBOX_MIGRATION_SQL = `
CREATE TABLE IF NOT EXISTS outbox (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  kind text NOT NULL,
  envelope jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  published_at timestamptz,
  claimed_until timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX IF NOT EXISTS outbox_unpublished_idx ON outbox (created_at, seq) WHERE published_at IS NULL;
`;

/** Writes the event in the caller's transaction; it is published after that transaction commits. */
export async function enqueueEvent(tx: Queryable, event: EventEnvelope): Promise<void> {
  await tx.query('INSERT INTO outbox (id, kind, envelope) VALUES ($1, $2, $3::jsonb)', [event.id, event.kind, JSON.stringify(event)]);
}

/** Several events in one statement, in the order given (their `seq` follows it): a change of many
 *  records writes its events together with them without a round trip per event. */
export async function enqueueEvents(tx: Queryable, events: EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO outbox (id, kind, envelope)
     SELECT e.id, e.kind, e.envelope FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS e(id, kind, envelope, i) ORDER BY e.i`,
    [events.map((e) => e.id), events.map((e) => e.kind), events.map((e) => JSON.stringify(e))],
  );
}

export interface OutboxRelayOptions {
  db: Database;
  bus: EventBus;
  logger?: Logger;
  intervalMs?: number;
  batchSize?: number;
  /** How long a claimed row stays invisible to other passes (crash recovery delay). */
  leaseMs?: number;
  /** Published rows are kept this long (for inspection), then deleted. */
  retainMs?: number;
}

interface OutboxRow {
  id: string;
  seq: string | number;
  envelope: EventEnvelope | string;
}

export function startOutboxRelay(opts: OutboxRelayOptions): Relay {
  const { db, bus } = opts;
  const logger = opts.logger ?? createLogger('bus');
  const batchSize = opts.batchSize ?? 100;
  const leaseMs = opts.leaseMs ?? 60_000;
  const retainMs = opts.retainMs ?? 24 * 3600_000;
  let lastPrune = 0;

  const pass = async (): Promise<boolean> => {
    const claimed = await db.query<OutboxRow>(
      `UPDATE outbox SET claimed_until = clock_timestamp() + $2 * interval '1 millisecond'
        WHERE id IN (
          SELECT id FROM outbox
           WHERE published_at IS NULL AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
           ORDER BY created_at, seq
           LIMIT $1
           FOR UPDATE SKIP LOCKED)
        RETURNING id, seq, envelope`,
      [batchSize, leaseMs],
    );
    // RETURNING has no order: sort back into (created_at, seq) order; seq follows created_at.
    const rows = claimed.rows.sort((a, b) => Number(a.seq) - Number(b.seq));
    for (const [i, row] of rows.entries()) {
      const event = typeof row.envelope === 'string' ? (JSON.parse(row.envelope) as EventEnvelope) : row.envelope;
      try {
        await bus.publish(event);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        await db.query('UPDATE outbox SET attempts = attempts + 1, last_error = $2, claimed_until = NULL WHERE id = $1', [row.id, message.slice(0, 2000)]);
        const rest = rows.slice(i + 1).map((r) => r.id);
        if (rest.length > 0) await db.query('UPDATE outbox SET claimed_until = NULL WHERE id = ANY($1::uuid[])', [rest]);
        logger.warn({ err, ...eventLogFields(event), backlog: rows.length - i }, 'outbox publish failed; will retry');
        return false;
      }
      await db.query('UPDATE outbox SET published_at = clock_timestamp(), claimed_until = NULL WHERE id = $1', [row.id]);
    }
    if (Date.now() - lastPrune > Math.min(retainMs, 3600_000)) {
      lastPrune = Date.now();
      await db.query(`DELETE FROM outbox WHERE published_at < clock_timestamp() - $1 * interval '1 millisecond'`, [retainMs]);
    }
    return rows.length === batchSize;
  };

  return runRelayLoop({
    name: 'outbox',
    pass,
    intervalMs: opts.intervalMs ?? 1000,
    logger,
    backlog: async () => Number((await db.query<{ n: string | number }>('SELECT count(*) AS n FROM outbox WHERE published_at IS NULL')).rows[0]?.n ?? 0),
  });
}
