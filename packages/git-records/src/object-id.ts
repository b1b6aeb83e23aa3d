/**
 * git's object ids as githost handles them: full SHA-1 ids in lower-case hex, as git prints them.
 * Kept apart from the rest of git-records (no gRPC) so the push hooks and ref-policy load it alone.
 */

/** The id git writes for "no object": a ref's old value when it is created, its new value when deleted. */
export const ZERO_OID = '0'.repeat(40);

/** A full object id, as a pattern to compose line formats (`<old> <new> <ref>`) from. */
export const OID_PATTERN = '[0-9a-f]{40}';

const FULL_OID = new RegExp(`^${OID_PATTERN}$`);

/** Whether `value` is a full 40-hex object id, lower case as git prints it. */
export function isFullOid(value: unknown): value is string {
  return typeof value === 'string' && FULL_OID.test(value);
}
