import { randomUUID } from 'node:crypto';
import type { Queryable } from '@githost/db';
import type { WebhookStore } from '../domain/ports.js';
import type { NewWebhook, WebhookChanges } from '../domain/webhook-input.js';
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

  /** One statement; a webhook switched on starts counting failures afresh (CONTRACT §7 deactivation). */
  async update(repoId: string, id: string, changes: WebhookChanges): Promise<Webhook | null> {
    const sets: string[] = [];
    const values: unknown[] = [id, repoId];
    const set = (column: string, value: unknown) => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (changes.url !== undefined) set('url', changes.url);
    if (changes.secret !== undefined) set('secret', changes.secret);
    if (changes.events !== undefined) set('events', changes.events);
    if (changes.type !== undefined) set('type', changes.type);
    if (changes.is_active !== undefined) {
      set('is_active', changes.is_active);
      if (changes.is_active) sets.push('consecutive_failures = 0');
    }
    if (sets.length === 0) return this.find(repoId, id);
    const { rows } = await this.db.query<Webhook>(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = $1 AND repo_id = $2 RETURNING ${COLUMNS}`, values);
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
