import type { Queryable } from '@githost/db';
import { countOf } from './rows.js';

/** The site's kept counts: migration 10's one row, moved by triggers on repositories and users
 *  (docs/decisions/explore-lists.md#the-count-of-a-page). */
export type SiteCount = 'public_repositories' | 'repositories' | 'active_users' | 'users';

export function siteCount(db: Queryable, column: SiteCount): Promise<number> {
  return countOf(db, `SELECT ${column} AS count FROM site_counts`);
}
