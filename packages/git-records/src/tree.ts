/** CONTRACT §5 tree entry. */
export interface TreeEntry {
  name: string;
  path: string;
  type: 'blob' | 'tree' | 'commit';
  mode: string;
  sha: string;
  size: number | null;
}

/**
 * The offset just past the first `n` records of a `git ls-tree -z` listing (each ends with a NUL,
 * which no name holds), or its end when it has fewer.
 */
export function endOfRecords(bytes: Uint8Array, n: number): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = 0;
  for (let i = 0; i < n && end < buf.length; i++) {
    const nul = buf.indexOf(0, end);
    end = nul === -1 ? buf.length : nul + 1;
  }
  return end;
}
