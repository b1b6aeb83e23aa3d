import type { Queryable } from './index.js';

/**
 * Keyset ("cursor") pages of a newest-first list (docs/decisions/list-paging.md): a page starts
 * after or before a row's key, never at an offset, so rows inserted meanwhile neither shift nor
 * repeat what a client already read, and every page is one index probe however long the list.
 */

/** A row's place in the list: its timestamp in microseconds since the epoch and its unique tie-break. */
export interface PageKey {
  at: string;
  tie: string;
}

export type PageStart =
  | { kind: 'newest' }
  | { kind: 'oldest' }
  /** Rows older than the key (the next page). */
  | { kind: 'older'; key: PageKey }
  /** Rows newer than the key (the previous page). */
  | { kind: 'newer'; key: PageKey };

export interface PageRequest {
  perPage: number;
  start: PageStart;
}

export interface KeysetPage<R> {
  /** Newest first, at most perPage. */
  rows: R[];
  first: PageKey | null;
  last: PageKey | null;
  hasNewer: boolean;
  hasOlder: boolean;
}

export interface KeysetList {
  /** The columns of a row (the key is added). */
  columns: string;
  from: string;
  /** Conditions over `params` ($1...); the index should lead with them, then `at`, `tie`. */
  where: string;
  params: unknown[];
  /** A timestamptz column. */
  at: string;
  /** An integer column, unique together with `at` among the rows `where` selects. */
  tie: string;
}

const KEY_AT = '_page_at';
const KEY_TIE = '_page_tie';

/** One page: one statement over the list's index, plus at most one EXISTS probe of the same index. */
export async function keysetPage<R>(db: Queryable, list: KeysetList, page: PageRequest): Promise<KeysetPage<R>> {
  const n = list.params.length;
  const keyOf = (i: number) => `(timestamptz 'epoch' + $${i}::bigint * interval '1 microsecond', $${i + 1}::bigint)`;
  const row = `(${list.at}, ${list.tie})`;
  const select = (cond: string, dir: 'ASC' | 'DESC', limit: number) =>
    `SELECT ${list.columns}, (extract(epoch FROM ${list.at}) * 1000000)::bigint::text AS ${KEY_AT}, ${list.tie}::text AS ${KEY_TIE}
       FROM ${list.from} WHERE ${list.where}${cond} ORDER BY ${list.at} ${dir}, ${list.tie} ${dir} LIMIT ${limit}`;
  const exists = async (op: '<' | '>', key: PageKey) => {
    // Ordered as the index is: without it the planner may bet on a sequential scan finding a row
    // early, which on a table filled in time order means reading most of it.
    const dir = op === '>' ? 'ASC' : 'DESC';
    const r = await db.query(`SELECT 1 FROM ${list.from} WHERE ${list.where} AND ${row} ${op} ${keyOf(n + 1)} ORDER BY ${list.at} ${dir}, ${list.tie} ${dir} LIMIT 1`, [
      ...list.params,
      key.at,
      key.tie,
    ]);
    return r.rows.length > 0;
  };
  const start = page.start;
  const limit = page.perPage + 1;
  let rows: Record<string, unknown>[];
  let hasNewer = false;
  let hasOlder = false;
  if (start.kind === 'newest' || start.kind === 'older') {
    const params = start.kind === 'older' ? [...list.params, start.key.at, start.key.tie] : list.params;
    const cond = start.kind === 'older' ? ` AND ${row} < ${keyOf(n + 1)}` : '';
    rows = (await db.query<Record<string, unknown>>(select(cond, 'DESC', limit), params)).rows;
    hasOlder = rows.length > page.perPage;
    rows = rows.slice(0, page.perPage);
    if (start.kind === 'older') hasNewer = await exists('>', rows[0] ? keyFrom(rows[0]) : start.key);
  } else {
    const params = start.kind === 'newer' ? [...list.params, start.key.at, start.key.tie] : list.params;
    const cond = start.kind === 'newer' ? ` AND ${row} > ${keyOf(n + 1)}` : '';
    rows = (await db.query<Record<string, unknown>>(select(cond, 'ASC', limit), params)).rows;
    hasNewer = rows.length > page.perPage;
    rows = rows.slice(0, page.perPage).reverse();
    if (start.kind === 'newer') hasOlder = await exists('<', rows.length > 0 ? keyFrom(rows[rows.length - 1]!) : start.key);
  }
  const keys = rows.map(keyFrom);
  return {
    rows: rows.map((r) => {
      const { [KEY_AT]: _at, [KEY_TIE]: _tie, ...rest } = r;
      return rest as R;
    }),
    first: keys[0] ?? null,
    last: keys[keys.length - 1] ?? null,
    hasNewer,
    hasOlder,
  };
}

function keyFrom(r: Record<string, unknown>): PageKey {
  return { at: String(r[KEY_AT]), tie: String(r[KEY_TIE]) };
}
