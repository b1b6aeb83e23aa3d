import type { Queryable } from '@githost/db';

/** The site's kept counts: migration 10's one row, moved by triggers on repositories and users
 *  (docs/decisions/explore-lists.md#the-count-of-a-page). */
export type SiteCount = 'public_repositories' | 'repositories' | 'active_users' | 'users';

export async function siteCount(db: Queryable, column: SiteCount): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>(`SELECT ${column} AS n FROM site_counts`);
  return Number(rows[0]?.n ?? 0);
}
