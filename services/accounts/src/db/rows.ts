import type { Queryable } from '@githost/db';
import { conflict } from '@githost/errors';

/** Postgres `unique_violation`, the same code on pg and PGlite. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string })?.code === '23505';
}

/** Runs `fn`; a unique violation becomes a 409 with `message`. */
export async function uniquely<T>(message: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(message);
    throw err;
  }
}

/** The one number a `SELECT ... AS count` statement answers (pg gives bigint as text). */
export async function countOf(db: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ count: string | number }>(sql, params);
  return Number(rows[0]?.count ?? 0);
}
