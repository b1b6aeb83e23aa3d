import { randomUUID } from 'node:crypto';
import { deleteInBatches, keysetPage, type Database, type KeysetPage, type PageRequest } from '@githost/db';
import type { EventEnvelope } from '@githost/bus';
import { plannedDeliveries } from '../domain/planned-deliveries.js';
import { DEFAULT_FORMAT_CONTEXT, type FormatContext, type WebhookType } from '../domain/formats/index.js';
import type { DeliveryQueue, DeliveryStore, DirectDelivery, RecordedAttempt } from '../domain/ports.js';
import type { ClaimedDelivery, Delivery, DeliveryAttempt } from '../domain/types.js';
import { afterDelivery, sameHealth, type WebhookHealth } from '../domain/webhook-health.js';

const COLUMNS =
  'id, webhook_id, event_id, event, payload, status, attempts, response_status, error, duration_ms, created_at, delivered_at, next_attempt_at';

export class PgDeliveryStore implements DeliveryStore, DeliveryQueue {
  constructor(
    private readonly db: Database,
    private readonly formatContext: FormatContext = DEFAULT_FORMAT_CONTEXT,
  ) {}

  /**
   * The first attempts each event makes: one per webhook that wants it (active, selecting its
   * kind and action, CONTRACT §9, and existing when the event happened, CONTRACT §9) and has no
   * delivery of it yet, so an event that comes again after its deliveries were recorded sends
   * nothing. The events of one consumer batch share these two queries.
   */
  async firstAttempts(events: EventEnvelope[]): Promise<ClaimedDelivery[][]> {
    if (events.length === 0) return [];
    // The creation-time comparison stays in SQL, at the event's precision: occurred_at carries
    // milliseconds, created_at microseconds, so an event of the webhook's creation millisecond
    // (a push right after the webhook was added) cannot be told to be earlier, and counts as after.
    const { rows: hooks } = await this.db.query<{ i: number; id: string; events: string; url: string; secret: string | null; type: WebhookType }>(
      `SELECT e.i::int AS i, w.id, w.events, w.url, w.secret, w.type
         FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS e(repo_id, occurred_at, i)
         JOIN webhooks w ON w.repo_id = e.repo_id AND w.is_active AND date_trunc('milliseconds', w.created_at) <= e.occurred_at
        ORDER BY e.i`,
      [events.map((e) => e.repository.id), events.map((e) => e.occurred_at)],
    );
    const planned = hooks.map((hook) => ({ hook, deliveries: plannedDeliveries(hook, events[hook.i - 1]!, this.formatContext) }));
    // A delivery's id is its (webhook, event id)'s (deliveryIdFor), so the ids already in the
    // table are the deliveries already recorded: one probe of the primary key each, the only
    // unique index the table keeps (migration 4).
    const ids = planned.flatMap((p) => p.deliveries.map((d) => d.id));
    const recorded = ids.length === 0 ? [] : (await this.db.query<{ id: string }>('SELECT id FROM deliveries WHERE id = ANY($1::uuid[])', [ids])).rows;
    const seen = new Set(recorded.map((r) => r.id));
    const takenUp = new Date();
    const claims: ClaimedDelivery[][] = events.map(() => []);
    for (const { hook, deliveries } of planned) {
      const event = events[hook.i - 1]!;
      for (const d of deliveries) {
        // Recorded already, or an event id given twice in one batch: sent once.
        if (seen.has(d.id)) continue;
        seen.add(d.id);
        claims[hook.i - 1]!.push({
          id: d.id,
          webhook_id: hook.id,
          event: d.event,
          payload: d.payload,
          attempts: 0,
          round_start: 0,
          url: hook.url,
          secret: hook.secret,
          type: hook.type,
          request_id: event.request_id ?? null,
          first: { event_id: d.eventId, created_at: takenUp },
        });
      }
    }
    return claims;
  }

  /** A delivery of its own event (a fresh event id, so it never collides with a bus event). */
  async recordDirect(d: DirectDelivery): Promise<string> {
    const id = randomUUID();
    await this.db.query(
      'INSERT INTO deliveries (id, webhook_id, event_id, event, payload, request_id) VALUES ($1, $2, $3, $4, $5::json, $6)',
      [id, d.webhookId, randomUUID(), d.event, JSON.stringify(d.payload), d.requestId ?? null],
    );
    return id;
  }

  /** Deliveries not finished yet (first attempts and scheduled retries): the pending gauge. */
  async countPending(): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'pending'");
    return Number(rows[0]?.n ?? 0);
  }

  /** Newest first (CONTRACT §7). */
  async listForWebhook(webhookId: string, limit: number): Promise<Delivery[]> {
    const { rows } = await this.db.query<Delivery>(
      `SELECT ${COLUMNS} FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [webhookId, limit],
    );
    return rows;
  }

  /** Newest first, one keyset page (docs/decisions/list-paging.md), over deliveries_webhook_idx. */
  async pageForWebhook(webhookId: string, page: PageRequest): Promise<KeysetPage<Delivery>> {
    return keysetPage<Delivery>(this.db, { columns: COLUMNS, from: 'deliveries', where: 'webhook_id = $1', params: [webhookId], at: 'created_at', tie: 'seq' }, page);
  }

  /**
   * Retention (docs/decisions/list-paging.md#retention): of each webhook's deliveries, those past
   * its newest `keep` AND older than `days` go, with their attempts (ON DELETE CASCADE); a
   * pending one (a first attempt or a retry to come) never does. 500 rows a statement (100 on PGlite), each
   * taken with SKIP LOCKED, one webhook after another; how many went.
   */
  async prune(keep: number, days: number): Promise<number> {
    let total = 0;
    let after = 0n;
    for (;;) {
      const { rows } = await this.db.query<{ id: string; seq: string }>('SELECT id, seq::text AS seq FROM webhooks WHERE seq > $1 ORDER BY seq LIMIT 100', [after.toString()]);
      for (const hook of rows) total += await this.pruneWebhook(hook.id, keep, days);
      if (rows.length < 100) return total;
      after = BigInt(rows[rows.length - 1]!.seq);
    }
  }

  private async pruneWebhook(webhookId: string, keep: number, days: number): Promise<number> {
    // The newest `keep` are those at or above the keep-th newest's key (one walk of `keep` index
    // entries, once a pass: new deliveries only move it later, so rows below it stay below it);
    // with fewer deliveries than that nothing goes.
    const { rows: newest } = await this.db.query<{ at: string; seq: string }>(
      'SELECT created_at::text AS at, seq::text AS seq FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC OFFSET $2 LIMIT 1',
      [webhookId, keep - 1],
    );
    if (!newest[0]) return 0;
    // Rows are taken oldest first after the cursor ($6, $7) and deleted by their ctid: the rows
    // locked are those deleted, with no second lookup of each in the primary key.
    return deleteInBatches(this.db, {
      sql: `WITH gone AS (
              DELETE FROM deliveries d WHERE d.ctid = ANY(ARRAY(
                SELECT ctid FROM deliveries
                 WHERE webhook_id = $1 AND status <> 'pending' AND created_at < now() - $2 * interval '1 day'
                   AND (created_at, seq) < ($3::timestamptz, $4::bigint)
                   AND (created_at, seq) > ($6::timestamptz, $7::bigint)
                 ORDER BY created_at, seq LIMIT $5 FOR UPDATE SKIP LOCKED)) AND d.status <> 'pending'
              RETURNING d.created_at, d.seq)
            SELECT (SELECT count(*)::int FROM gone) AS deleted,
                   (SELECT ARRAY[created_at::text, seq::text] FROM gone ORDER BY created_at DESC, seq DESC LIMIT 1) AS cursor`,
      params: [webhookId, days, newest[0].at, newest[0].seq],
      start: ['-infinity', '0'],
    });
  }

  async find(webhookId: string, id: string): Promise<Delivery | null> {
    const { rows } = await this.db.query<Delivery>(`SELECT ${COLUMNS} FROM deliveries WHERE id = $1 AND webhook_id = $2`, [id, webhookId]);
    return rows[0] ?? null;
  }

  async attempts(deliveryId: string): Promise<DeliveryAttempt[]> {
    const { rows } = await this.db.query<DeliveryAttempt>(
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
  async redeliver(webhookId: string, id: string): Promise<Delivery | null> {
    const { rows } = await this.db.query<Delivery>(
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
       RETURNING d.id, d.webhook_id, d.event, d.payload, d.attempts, d.round_start, d.request_id, w.url, w.secret, w.type`,
      [limit, leaseMs],
    );
    return rows;
  }

  /**
   * Records each attempt and its delivery's new state, all in one transaction (the worker's group
   * commit): a first attempt creates its delivery, already in that state; when a delivery is
   * finished, its webhook's failure streak moves too. Guarded on the attempt count the claim saw,
   * so an attempt whose lease ran out and was taken over is not recorded twice. One answer per
   * attempt, in order: false when it lost that race.
   */
  async recordAttempts(attempts: RecordedAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    // One order for every writer (row locks are taken in it), so two transactions cannot deadlock.
    const sorted = [...attempts].sort((a, b) => byCodeUnits(a.claim.id, b.claim.id));
    const first = sorted.filter((a) => a.claim.first);
    const leased = sorted.filter((a) => !a.claim.first);
    return this.db.transaction(async (tx) => {
      const wonIds: string[] = [];
      if (first.length > 0) {
        // A conflict is the same delivery recorded by a consumer that took the event up too (a
        // redelivery by the broker): that record stands, this attempt is not recorded twice.
        const inserted = await tx.query<{ id: string }>(
          `INSERT INTO deliveries (id, webhook_id, event_id, event, payload, request_id, status, attempts, next_attempt_at,
                                   response_status, error, duration_ms, created_at, delivered_at)
           SELECT r.id, r.webhook_id, r.event_id, r.event, r.payload::json, r.request_id, r.status, 1,
                  CASE WHEN r.status = 'pending' THEN now() + r.retry_ms * interval '1 millisecond' ELSE now() END,
                  r.response_status, r.error, r.duration_ms, r.created_at,
                  CASE WHEN r.status = 'delivered' THEN now() ELSE NULL END
             FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::double precision[],
                         $9::int[], $10::text[], $11::int[], $12::timestamptz[])
               AS r(id, webhook_id, event_id, event, payload, request_id, status, retry_ms, response_status, error, duration_ms, created_at)
           ON CONFLICT DO NOTHING
           RETURNING id`,
          [
            first.map((a) => a.claim.id),
            first.map((a) => a.claim.webhook_id),
            first.map((a) => a.claim.first!.event_id),
            first.map((a) => a.claim.event),
            first.map((a) => a.body ?? JSON.stringify(a.claim.payload)),
            first.map((a) => a.claim.request_id),
            first.map((a) => a.result.status),
            first.map((a) => a.result.retryInMs ?? 0),
            first.map((a) => a.result.responseStatus),
            first.map((a) => a.result.error),
            first.map((a) => a.result.durationMs),
            first.map((a) => a.claim.first!.created_at),
          ],
        );
        for (const r of inserted.rows) wonIds.push(r.id);
      }
      if (leased.length > 0) {
        // `id = ANY` as well as the join: a table whose statistics lag a burst (a fresh one, or 7
        // pending rows known where there are 10,000) is otherwise joined by scanning every pending row per attempt.
        const updated = await tx.query<{ id: string }>(
          `UPDATE deliveries d SET attempts = r.number, status = r.status,
             next_attempt_at = CASE WHEN r.status = 'pending' THEN now() + r.retry_ms * interval '1 millisecond' ELSE d.next_attempt_at END,
             response_status = r.response_status, error = r.error, duration_ms = r.duration_ms,
             delivered_at = CASE WHEN r.status = 'delivered' THEN now() ELSE NULL END
           FROM unnest($1::uuid[], $2::int[], $3::text[], $4::double precision[], $5::int[], $6::text[], $7::int[], $8::int[])
             AS r(id, number, status, retry_ms, response_status, error, duration_ms, seen_attempts)
           WHERE d.id = ANY($1::uuid[]) AND d.id = r.id AND d.attempts = r.seen_attempts AND d.status = 'pending'
           RETURNING d.id`,
          [
            leased.map((a) => a.claim.id),
            leased.map((a) => a.claim.attempts + 1),
            leased.map((a) => a.result.status),
            leased.map((a) => a.result.retryInMs ?? 0),
            leased.map((a) => a.result.responseStatus),
            leased.map((a) => a.result.error),
            leased.map((a) => a.result.durationMs),
            leased.map((a) => a.claim.attempts),
          ],
        );
        for (const r of updated.rows) wonIds.push(r.id);
      }
      const won = new Set(wonIds);
      const recorded = sorted.filter((a) => won.has(a.claim.id));
      if (recorded.length > 0) {
        await tx.query(
          `INSERT INTO delivery_attempts (delivery_id, number, status, error, duration_ms, response_status, response_body)
           SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::text[])`,
          [
            recorded.map((a) => a.claim.id),
            recorded.map((a) => a.claim.attempts + 1),
            recorded.map((a) => (a.result.status === 'delivered' ? 'succeeded' : 'failed')),
            recorded.map((a) => a.result.error),
            recorded.map((a) => a.result.durationMs),
            recorded.map((a) => a.result.responseStatus),
            recorded.map((a) => a.result.responseBody),
          ],
        );
      }
      // Finished deliveries move their webhook's failure streak, in the order they are given.
      const finished = new Map<string, boolean[]>();
      for (const a of attempts) {
        if (!won.has(a.claim.id) || a.result.status === 'pending') continue;
        const outcomes = finished.get(a.claim.webhook_id) ?? [];
        outcomes.push(a.result.status === 'delivered');
        finished.set(a.claim.webhook_id, outcomes);
      }
      await updateHealth(tx, finished);
      return attempts.map((a) => won.has(a.claim.id));
    });
  }
}

/** Plain code-unit order (not locale order): the one lock order every writer shares. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Moves each webhook's failure streak by its finished deliveries (in the order given), in at most
 * three statements for the whole batch however many webhooks it holds: a statement each, inside
 * the batch's transaction, was a round trip per webhook while the transaction held its locks (on
 * the embedded database, a crossing between threads each; docs/embedded-mode.md#a-thread-for-the-database).
 */
async function updateHealth(tx: Pick<Database, 'query'>, finished: Map<string, boolean[]>): Promise<void> {
  if (finished.size === 0) return;
  const fold = (id: string, start: WebhookHealth) => finished.get(id)!.reduce((health, delivered) => afterDelivery(health, delivered), start);
  // Read without a lock first: successes on a healthy webhook change nothing, and locking the one
  // row every delivery of a webhook shares would serialise all of them.
  const health = 'SELECT id, consecutive_failures, is_active FROM webhooks WHERE id = ANY($1::uuid[])';
  const { rows: seen } = await tx.query<WebhookHealth & { id: string }>(health, [[...finished.keys()]]);
  const moving = seen.filter((h) => !sameHealth(h, fold(h.id, h))).map((h) => h.id);
  if (moving.length === 0) return;
  // Locked in id order, the one lock order every writer of webhooks' rows shares.
  const { rows } = await tx.query<WebhookHealth & { id: string }>(`${health} ORDER BY id FOR UPDATE`, [moving]);
  const next = rows.map((h) => ({ id: h.id, ...fold(h.id, h) }));
  await tx.query(
    `UPDATE webhooks w SET consecutive_failures = n.failures, is_active = n.active
       FROM unnest($1::uuid[], $2::int[], $3::boolean[]) AS n(id, failures, active)
      WHERE w.id = n.id`,
    [next.map((h) => h.id), next.map((h) => h.consecutive_failures), next.map((h) => h.is_active)],
  );
}
