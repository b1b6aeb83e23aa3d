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
