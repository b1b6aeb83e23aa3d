import { createHash } from 'node:crypto';

/** Bumped when a response shape changes, so caches never serve an old shape under a new ETag. */
const SHAPE_VERSION = 'v1';

/** A strong ETag for a body that is a pure function of `parts` (immutable object ids and names). */
export function etagOf(...parts: readonly (string | number)[]): string {
  const hash = createHash('sha1');
  hash.update(SHAPE_VERSION);
  for (const p of parts) hash.update(`\0${p}`);
  return `"${hash.digest('base64url')}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison. `*` is not honoured: the validator
 * is known before the object is read, so `*` could turn a missing path into a 304; a full answer
 * is always a correct reply to it.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}
