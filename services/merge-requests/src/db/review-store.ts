import { iso, type Database } from '@githost/db';
import { enqueueEvent, type EventEnvelope } from '@githost/bus';
import type { Permission } from '@githost/identity';
import type { NewReview, ReviewRequest, ReviewRequestStore, ReviewStore } from '../domain/ports.js';
import type { Review, ReviewState } from '../domain/types.js';

const COLUMNS = 'id, mr_id, author_id, state, body, commit_sha, reviewer_permission, created_at';

function toReview(r: Record<string, unknown>): Review {
  return {
    id: String(r.id),
    mr_id: String(r.mr_id),
    author_id: (r.author_id as string | null) ?? null,
    state: r.state as ReviewState,
    body: String(r.body),
    commit_sha: String(r.commit_sha),
    reviewer_permission: r.reviewer_permission as Permission,
    created_at: iso(r.created_at),
  };
}

/** ReviewStore and ReviewRequestStore on Postgres or PGlite (schema `merge_requests`). */
export class PgReviewStore implements ReviewStore, ReviewRequestStore {
  constructor(private readonly db: Database) {}

  async addReview(input: NewReview, event: (review: Review) => EventEnvelope): Promise<Review> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query<Record<string, unknown>>(
        `INSERT INTO merge_request_reviews (mr_id, author_id, state, body, commit_sha, reviewer_permission)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [input.mr_id, input.author_id, input.state, input.body, input.commit_sha, input.reviewer_permission],
      );
      const review = toReview(r.rows[0]!);
      // A review answers its author's request for one (Gitea, GitHub), with the review or not at all.
      if (input.author_id !== null) await tx.query(`DELETE FROM merge_request_review_requests WHERE mr_id = $1 AND reviewer_id = $2`, [input.mr_id, input.author_id]);
      await enqueueEvent(tx, event(review));
      return review;
    });
  }

  /** Adds the requests not already pending, under the merge request's row lock so `max` holds under concurrent asks. */
  async addRequests(mrId: string, reviewerIds: string[], requestedBy: string | null, max: number, events: (added: string[]) => EventEnvelope[]): Promise<'ok' | 'limit'> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT 1 FROM merge_requests WHERE id = $1 FOR UPDATE`, [mrId]);
      const pending = await tx.query<{ reviewer_id: string }>(`SELECT reviewer_id FROM merge_request_review_requests WHERE mr_id = $1`, [mrId]);
      const have = new Set(pending.rows.map((r) => r.reviewer_id));
      const fresh = reviewerIds.filter((id) => !have.has(id));
      if (have.size + fresh.length > max) return 'limit';
      for (const id of fresh) {
        await tx.query(`INSERT INTO merge_request_review_requests (mr_id, reviewer_id, requested_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [mrId, id, requestedBy]);
      }
      for (const e of fresh.length > 0 ? events(fresh) : []) await enqueueEvent(tx, e);
      return 'ok';
    });
  }

  async removeRequests(mrId: string, reviewerIds: string[], events: (removed: string[]) => EventEnvelope[]): Promise<void> {
    await this.db.transaction(async (tx) => {
      const removed = await tx.query<{ reviewer_id: string }>(
        `DELETE FROM merge_request_review_requests WHERE mr_id = $1 AND reviewer_id = ANY($2::text[]) RETURNING reviewer_id`,
        [mrId, reviewerIds],
      );
      // In the order asked, as the added ones are.
      const gone = new Set(removed.rows.map((r) => String(r.reviewer_id)));
      const ids = reviewerIds.filter((id) => gone.has(id));
      for (const e of ids.length > 0 ? events(ids) : []) await enqueueEvent(tx, e);
    });
  }

  async listRequests(mrIds: string[]): Promise<ReviewRequest[]> {
    const r = await this.db.query<Record<string, unknown>>(
      `SELECT mr_id, reviewer_id, requested_by, created_at FROM merge_request_review_requests WHERE mr_id = ANY($1::uuid[]) ORDER BY created_at, reviewer_id`,
      [mrIds],
    );
    return r.rows.map((row) => ({ mr_id: String(row.mr_id), reviewer_id: String(row.reviewer_id), requested_by: (row.requested_by as string | null) ?? null, created_at: iso(row.created_at) }));
  }

  async listReviews(mrId: string): Promise<Review[]> {
    const r = await this.db.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM merge_request_reviews WHERE mr_id = $1 ORDER BY seq`, [mrId]);
    return r.rows.map(toReview);
  }
}
