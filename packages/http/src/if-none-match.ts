/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison. `*` is not honoured: a validator known
 * before the object is read could turn a missing path into a 304 with it; a full answer is always
 * a correct reply. The one reading of the header for browse, the gateway's edge and the Gitea face.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}
