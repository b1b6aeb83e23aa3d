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
 * Parses `git ls-tree --long -z` records (`<mode> SP <type> SP <oid> SP+ <size> TAB <name> NUL`;
 * the size is space-padded, `-` for non-blobs) into CONTRACT §5 entries in git's order. The whole
 * buffer is decoded once: NUL and TAB are ASCII, so UTF-8 decoding cannot move them.
 */
export function parseTreeRecords(bytes: Uint8Array, dir: string): TreeEntry[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const prefix = dir === '' ? '' : `${dir}/`;
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\0', start);
    if (end === -1) end = text.length;
    const tab = text.indexOf('\t', start);
    if (tab === -1 || tab > end) throw new Error(`malformed tree record at offset ${start}`);
    const [mode, type, sha, size] = text.slice(start, tab).split(' ').filter((f) => f !== '');
    if (!mode || !sha || (type !== 'blob' && type !== 'tree' && type !== 'commit')) {
      throw new Error(`malformed tree record at offset ${start}`);
    }
    const name = text.slice(tab + 1, end);
    entries.push({ name, path: prefix + name, type, mode, sha, size: size === undefined || size === '-' ? null : Number(size) });
    start = end + 1;
  }
  return entries;
}
