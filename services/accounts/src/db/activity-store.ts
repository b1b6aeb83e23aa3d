import { GroupCommit, type Queryable } from '@githost/db';
import type { PushActivity } from '../domain/ports.js';

/** Push events recorded in one statement at most. */
const PUSH_BATCH = 500;

/**
 * The last push of each repository, which orders the Explore list (docs/decisions/explore-lists.md).
 * GREATEST keeps the later time, so a redelivered or late event never moves a repository back;
 * an event for a repository deleted since changes no row. The pushes in flight together are one
 * UPDATE (GroupCommit): a push of 10,000 refs is 10,000 `push` events of one repository, which
 * one statement per event turned into 10,000 statements (docs/decisions/many-refs-push.md).
 */
export class PgActivityStore implements PushActivity {
  private readonly pushes: GroupCommit<{ repositoryId: string; pushedAt: Date }, void>;

  constructor(db: Queryable) {
    this.pushes = new GroupCommit({
      maxBatch: PUSH_BATCH,
      runBatch: async (items) => {
        await db.query(
          `UPDATE repositories r SET pushed_at = GREATEST(r.pushed_at, p.pushed_at)
             FROM (SELECT id, max(at) AS pushed_at FROM unnest($1::text[], $2::timestamptz[]) AS u (id, at) GROUP BY id) p
            WHERE r.id = p.id`,
          [items.map((i) => i.repositoryId), items.map((i) => i.pushedAt.toISOString())],
        );
        return items.map(() => undefined);
      },
    });
  }

  recordPush(repositoryId: string, pushedAt: Date): Promise<void> {
    return this.pushes.submit({ repositoryId, pushedAt });
  }
}
