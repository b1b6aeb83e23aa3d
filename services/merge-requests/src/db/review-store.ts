import type { Database } from '@githost/db';
import { enqueueEvent, type EventEnvelope } from '@githost/bus';
import type { Permission } from '@githost/identity';
import type { NewReview, ReviewStore } from '../domain/ports.js';
import type { Review, ReviewState } from '../domain/types.js';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
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

/** ReviewStore on Postgres or PGlite (schema `merge_requests`). */
export class PgReviewStore implements ReviewStore {
  constructor(private readonly db: Database) {}

  async addReview(input: NewReview, event: (review: Review) => EventEnvelope): Promise<Review> {
    return this.db.transaction(async (tx) => {
      const r = await tx.query<Record<string, unknown>>(
        `INSERT INTO merge_request_reviews (mr_id, author_id, state, body, commit_sha, reviewer_permission)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
        [input.mr_id, input.author_id, input.state, input.body, input.commit_sha, input.reviewer_permission],
      );
      const review = toReview(r.rows[0]!);
      await enqueueEvent(tx, event(review));
      return review;
    });
  }

  async listReviews(mrId: string): Promise<Review[]> {
    const r = await this.db.query<Record<string, unknown>>(`SELECT ${COLUMNS} FROM merge_request_reviews WHERE mr_id = $1 ORDER BY seq`, [mrId]);
    return r.rows.map(toReview);
  }
}
