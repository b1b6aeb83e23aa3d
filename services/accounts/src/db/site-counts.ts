import type { Queryable } from '@githost/db';

/** The kept counts of the site (migration 10's one row). */
export interface SiteCounts {
  public_repositories: number;
  repositories: number;
  active_users: number;
  users: number;
}

/**
 * Moves the site's kept counts (docs/decisions/explore-lists.md#the-count-of-a-page) in the
 * transaction that changed the rows they count, as its last statement: the one row is then locked
 * only until that transaction commits, so concurrent changes wait for each other's commit, not
 * for each other's work.
 */
export async function moveSiteCounts(tx: Queryable, by: Partial<SiteCounts>): Promise<void> {
  const columns = (Object.keys(by) as (keyof SiteCounts)[]).filter((c) => by[c] !== 0);
  if (columns.length === 0) return;
  await tx.query(`UPDATE site_counts SET ${columns.map((c, i) => `${c} = ${c} + $${i + 1}::int`).join(', ')}`, columns.map((c) => by[c]));
}

/** One kept count. */
export async function siteCount(db: Queryable, column: keyof SiteCounts): Promise<number> {
  const { rows } = await db.query<Record<string, string | number>>(`SELECT ${column} AS n FROM site_counts`);
  return Number(rows[0]?.n ?? 0);
}
