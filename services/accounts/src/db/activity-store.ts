import type { Queryable } from '@githost/db';
import type { PushActivity } from '../domain/ports.js';

/**
 * The last push of each repository, which orders the Explore list (docs/decisions/explore-lists.md).
 * GREATEST keeps the later time, so a redelivered or late event never moves a repository back;
 * an event for a repository deleted since changes no row.
 */
export class PgActivityStore implements PushActivity {
  constructor(private readonly db: Queryable) {}

  async recordPush(repositoryId: string, pushedAt: Date): Promise<void> {
    await this.db.query('UPDATE repositories SET pushed_at = GREATEST(pushed_at, $2::timestamptz) WHERE id = $1', [repositoryId, pushedAt.toISOString()]);
  }
}
