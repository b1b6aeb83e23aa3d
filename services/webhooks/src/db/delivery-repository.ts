import { randomUUID } from 'node:crypto';
import type { Database } from '@githost/db';
import type { EventEnvelope } from '@githost/bus';
import { selectsEvent } from '../domain/events.js';
import { afterDelivery, sameHealth, type WebhookHealth } from '../domain/webhook-health.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  payload: unknown;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: Date;
  delivered_at: Date | null;
  next_attempt_at: Date;
}

export interface AttemptRow {
  number: number;
  status: 'succeeded' | 'failed';
  error: string | null;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  created_at: Date;
}

/** A pending delivery this process has leased and is about to send. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event: string;
  payload: unknown;
  attempts: number;
  round_start: number;
  url: string;
  secret: string | null;
  /** Request id of the change behind the event, for logs (null for events without one). */
  request_id: string | null;
}

export interface AttemptResult {
  /** What the delivery becomes: still pending (a retry is scheduled), delivered or failed. */
  status: DeliveryStatus;
  retryInMs?: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
}

const COLUMNS =
  'id, webhook_id, event_id, event, payload, status, attempts, response_status, error, duration_ms, created_at, delivered_at, next_attempt_at';

export class DeliveryRepository {
  constructor(private readonly db: Database) {}

  /**
   * Records one pending delivery per webhook that wants this event, in one transaction, so the
   * consumer acks the message only once they are all durable. A webhook gets the event when it is
   * active, selects the kind (CONTRACT §5) and existed when the event happened (CONTRACT §9).
   * An event that comes again records nothing new (UNIQUE (webhook_id, event_id)).
   */
  async recordEvent(event: EventEnvelope): Promise<number> {
    return (await this.recordEvents([event]))[0]!;
  }

  /**
   * recordEvent for several events in one transaction (the consumer's group commit): all or none
   * are recorded. Returns the deliveries recorded for each event, in order; an event id given
   * twice counts its deliveries once.
   */
  async recordEvents(events: EventEnvelope[]): Promise<number[]> {
    if (events.length === 0) return [];
    return this.db.transaction(async (tx) => {
      // The creation-time comparison stays in SQL: created_at has microseconds a JS Date would drop.
      const { rows: hooks } = await tx.query<{ i: number; id: string; events: string }>(
        `SELECT e.i::int AS i, w.id, w.events
           FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS e(repo_id, occurred_at, i)
           JOIN webhooks w ON w.repo_id = e.repo_id AND w.is_active AND w.created_at <= e.occurred_at`,
        [events.map((e) => e.repository.id), events.map((e) => e.occurred_at)],
      );
      const rows = new Map<string, { webhookId: string; event: EventEnvelope }>();
      for (const hook of hooks) {
        const event = events[hook.i - 1]!;
        if (selectsEvent(hook.events, event.kind)) rows.set(`${hook.id}\n${event.id}`, { webhookId: hook.id, event });
      }
      const recorded = new Map<string, number>();
      if (rows.size > 0) {
        // One order for every writer, so two transactions inserting the same keys cannot deadlock.
        const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
        const inserted = await tx.query<{ event_id: string }>(
          `INSERT INTO deliveries (id, webhook_id, event_id, event, payload, request_id)
           SELECT id, webhook_id, event_id, event, payload::json, request_id
             FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) AS r(id, webhook_id, event_id, event, payload, request_id)
           ON CONFLICT (webhook_id, event_id) DO NOTHING
           RETURNING event_id`,
          [
            sorted.map(() => randomUUID()),
            sorted.map((r) => r.webhookId),
            sorted.map((r) => r.event.id),
            sorted.map((r) => r.event.kind),
            sorted.map((r) => JSON.stringify(r.event.payload)),
            sorted.map((r) => r.event.request_id ?? null),
          ],
        );
        for (const { event_id } of inserted.rows) recorded.set(event_id, (recorded.get(event_id) ?? 0) + 1);
      }
      const counted = new Set<string>();
      return events.map((e) => {
        if (counted.has(e.id)) return 0;
        counted.add(e.id);
        return recorded.get(e.id) ?? 0;
      });
    });
  }

  /** Deliveries not finished yet (first attempts and scheduled retries): the pending gauge. */
  async countPending(): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'pending'");
    return Number(rows[0]?.n ?? 0);
  }

  /** Newest first (CONTRACT §7). */
  async listForWebhook(webhookId: string, limit: number): Promise<DeliveryRow[]> {
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [webhookId, limit],
    );
    return rows;
  }

  async find(webhookId: string, id: string): Promise<DeliveryRow | null> {
    const { rows } = await this.db.query<DeliveryRow>(`SELECT ${COLUMNS} FROM deliveries WHERE id = $1 AND webhook_id = $2`, [id, webhookId]);
    return rows[0] ?? null;
  }

  async attempts(deliveryId: string): Promise<AttemptRow[]> {
    const { rows } = await this.db.query<AttemptRow>(
      'SELECT number, status, error, duration_ms, response_status, response_body, created_at FROM delivery_attempts WHERE delivery_id = $1 ORDER BY number',
      [deliveryId],
    );
    return rows;
  }

  /**
   * Puts a finished delivery back in the queue with a fresh attempt budget; the id (the
   * X-Githost-Delivery value) stays, so receivers see the same delivery again. Null when the
   * delivery is unknown or still pending.
   */
  async redeliver(webhookId: string, id: string): Promise<DeliveryRow | null> {
    const { rows } = await this.db.query<DeliveryRow>(
      `UPDATE deliveries SET status = 'pending', round_start = attempts, next_attempt_at = now(), delivered_at = NULL
       WHERE id = $1 AND webhook_id = $2 AND status <> 'pending' RETURNING ${COLUMNS}`,
      [id, webhookId],
    );
    return rows[0] ?? null;
  }

  /**
   * Leases up to `limit` due deliveries: their next_attempt_at moves `leaseMs` ahead, so another
   * worker (or this one after a crash) picks them up again only if this attempt never records.
   * SKIP LOCKED lets replicas claim side by side without waiting on each other.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const { rows } = await this.db.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
       )
       UPDATE deliveries d SET next_attempt_at = now() + $2::double precision * interval '1 millisecond'
       FROM due, webhooks w
       WHERE d.id = due.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.event, d.payload, d.attempts, d.round_start, d.request_id, w.url, w.secret`,
      [limit, leaseMs],
    );
    return rows;
  }

  /**
   * Records one attempt and the delivery's new state together; when the delivery is finished,
   * the webhook's failure streak too. Guarded on the attempt count the claim saw, so an attempt
   * whose lease ran out and was taken over is not recorded twice. False when it lost that race.
   */
  async recordAttempt(claim: ClaimedDelivery, result: AttemptResult): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const number = claim.attempts + 1;
      const updated = await tx.query(
        `UPDATE deliveries SET attempts = $2, status = $3::text,
           next_attempt_at = CASE WHEN $3::text = 'pending' THEN now() + $4::double precision * interval '1 millisecond' ELSE next_attempt_at END,
           response_status = $5, error = $6, duration_ms = $7,
           delivered_at = CASE WHEN $3::text = 'delivered' THEN now() ELSE NULL END
         WHERE id = $1 AND attempts = $8 AND status = 'pending'`,
        [claim.id, number, result.status, result.retryInMs ?? 0, result.responseStatus, result.error, result.durationMs, claim.attempts],
      );
      if (updated.rowCount === 0) return false;
      await tx.query(
        `INSERT INTO delivery_attempts (delivery_id, number, status, error, duration_ms, response_status, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [claim.id, number, result.status === 'delivered' ? 'succeeded' : 'failed', result.error, result.durationMs, result.responseStatus, result.responseBody],
      );
      if (result.status !== 'pending') {
        const delivered = result.status === 'delivered';
        // Read without a lock first: a success on a healthy webhook changes nothing, and locking
        // the one row every delivery of a webhook shares would serialise all of them.
        const { rows: seen } = await tx.query<WebhookHealth>('SELECT consecutive_failures, is_active FROM webhooks WHERE id = $1', [claim.webhook_id]);
        if (!seen[0] || sameHealth(seen[0], afterDelivery(seen[0], delivered))) return true;
        const { rows } = await tx.query<WebhookHealth>(
          'SELECT consecutive_failures, is_active FROM webhooks WHERE id = $1 FOR UPDATE',
          [claim.webhook_id],
        );
        if (rows[0]) {
          const next = afterDelivery(rows[0], delivered);
          await tx.query('UPDATE webhooks SET consecutive_failures = $2, is_active = $3 WHERE id = $1', [
            claim.webhook_id,
            next.consecutive_failures,
            next.is_active,
          ]);
        }
      }
      return true;
    });
  }
}
