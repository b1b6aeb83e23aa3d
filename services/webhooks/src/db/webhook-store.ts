import { randomUUID } from 'node:crypto';
import type { Queryable } from '@githost/db';
import type { WebhookStore } from '../domain/ports.js';
import type { NewWebhook } from '../domain/webhook-input.js';
import type { Webhook } from '../domain/types.js';

const COLUMNS = 'id, repo_id, url, secret, events, type, is_active, consecutive_failures, created_at';

export class PgWebhookStore implements WebhookStore {
  constructor(private readonly db: Queryable) {}

  async create(repoId: string, input: NewWebhook): Promise<Webhook> {
    const { rows } = await this.db.query<Webhook>(
      `INSERT INTO webhooks (id, repo_id, url, secret, events, type) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [randomUUID(), repoId, input.url, input.secret, input.events, input.type ?? 'githost'],
    );
    return rows[0]!;
  }

  async list(repoId: string): Promise<Webhook[]> {
    const { rows } = await this.db.query<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE repo_id = $1 ORDER BY created_at, seq`, [repoId]);
    return rows;
  }

  /** Only a webhook of this repository (seed §4 webhooks rule 4); `id` must already be a uuid. */
  async find(repoId: string, id: string): Promise<Webhook | null> {
    const { rows } = await this.db.query<Webhook>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND repo_id = $2`, [id, repoId]);
    return rows[0] ?? null;
  }

  /** Deliveries and their attempts go by ON DELETE CASCADE, in the same statement. */
  async deleteForRepository(repoId: string): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM webhooks WHERE repo_id = $1', [repoId]);
    return rowCount;
  }

  /** seed §4 webhooks rule 4: both the id and the repository must match. */
  async delete(repoId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM webhooks WHERE id = $1 AND repo_id = $2', [id, repoId]);
    return rowCount > 0;
  }
}
