import { iso, type Database } from '@githost/db';
import { enqueueEvent, type EventEnvelope } from '@githost/bus';
import type { NewStatus, StatusStore } from '../domain/ports.js';
import type { CommitStatus, StatusState } from '../domain/types.js';

const COLUMNS = 'id, sha, state, context, description, target_url, creator_username, created_at, updated_at';

function toStatus(r: Record<string, unknown>): CommitStatus {
  return {
    id: String(r.id),
    sha: String(r.sha),
    state: r.state as StatusState,
    context: String(r.context),
    description: (r.description as string | null) ?? null,
    target_url: (r.target_url as string | null) ?? null,
    creator: { username: String(r.creator_username) },
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** StatusStore on Postgres or PGlite (schema `merge_requests`). */
export class PgStatusStore implements StatusStore {
  constructor(private readonly db: Database) {}

  async addStatus(s: NewStatus, maxPerContext: number, event: (status: CommitStatus) => EventEnvelope): Promise<CommitStatus | 'limit'> {
    return this.db.transaction(async (tx) => {
      // The count row's lock orders concurrent posts for one context; none passes the limit.
      const counted = await tx.query(
        `INSERT INTO commit_status_counts (repo_id, sha, context, count) VALUES ($1, $2, $3, 1)
         ON CONFLICT (repo_id, sha, context) DO UPDATE SET count = commit_status_counts.count + 1
           WHERE commit_status_counts.count < $4
         RETURNING count`,
        [s.repo_id, s.sha, s.context, maxPerContext],
      );
      if (counted.rows.length === 0) return 'limit' as const;
      const r = await tx.query<Record<string, unknown>>(
        `INSERT INTO commit_statuses (repo_id, sha, context, state, description, target_url, creator_id, creator_username)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [s.repo_id, s.sha, s.context, s.state, s.description, s.target_url, s.creator_id, s.creator_username],
      );
      const status = toStatus(r.rows[0]!);
      await enqueueEvent(tx, event(status));
      return status;
    });
  }

  async listStatuses(repoId: string, sha: string, page: { limit: number; offset: number }): Promise<CommitStatus[]> {
    const r = await this.db.query<Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM commit_statuses WHERE repo_id = $1 AND sha = $2 ORDER BY seq DESC LIMIT $3 OFFSET $4`,
      [repoId, sha, page.limit, page.offset],
    );
    return r.rows.map(toStatus);
  }

  async latestPerContext(repoId: string, sha: string): Promise<CommitStatus[]> {
    const r = await this.db.query<Record<string, unknown>>(
      `SELECT * FROM (SELECT DISTINCT ON (context) ${COLUMNS}, seq FROM commit_statuses WHERE repo_id = $1 AND sha = $2 ORDER BY context, seq DESC) latest
       ORDER BY seq DESC`,
      [repoId, sha],
    );
    return r.rows.map(toStatus);
  }
}
