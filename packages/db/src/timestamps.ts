/**
 * A `timestamptz` column as the API speaks it, ISO 8601 in UTC. pg and PGlite both hand back a
 * Date (the database thread re-creates it in the caller's realm, ./pglite-thread.ts); a string
 * (a value read as text) is parsed.
 */
export function iso(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString();
}

/** {@link iso}, with a missing value (SQL NULL) kept as null. */
export function isoOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : iso(value);
}
