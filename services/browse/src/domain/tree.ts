import { endOfRecords, type TreeEntry } from '@githost/git-records';

/**
 * Walks `git ls-tree --long -z` records (`<mode> SP <type> SP <oid> SP+ <size> TAB <name> NUL`;
 * the size is space-padded, `-` for non-blobs). The whole buffer is decoded once: NUL, TAB and
 * space are ASCII, so UTF-8 decoding cannot move them, and the header holds no TAB, so the first
 * TAB of a record ends it even when the name contains one.
 */
function eachRecord(bytes: Uint8Array, visit: (mode: string, type: TreeEntry['type'], sha: string, size: string, name: string) => void): void {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let start = 0;
  while (start < text.length) {
    const tab = text.indexOf('\t', start);
    const sp1 = text.indexOf(' ', start);
    const sp2 = sp1 === -1 ? -1 : text.indexOf(' ', sp1 + 1);
    const sp3 = sp2 === -1 ? -1 : text.indexOf(' ', sp2 + 1);
    if (tab === -1 || sp3 === -1 || sp3 > tab) throw new Error(`malformed tree record at offset ${start}`);
    const type = text.slice(sp1 + 1, sp2);
    if (type !== 'blob' && type !== 'tree' && type !== 'commit') throw new Error(`malformed tree record at offset ${start}`);
    let end = text.indexOf('\0', tab + 1);
    if (end === -1) end = text.length;
    visit(text.slice(start, sp1), type, text.slice(sp2 + 1, sp3), text.slice(sp3 + 1, tab).trim(), text.slice(tab + 1, end));
    start = end + 1;
  }
}

/** CONTRACT §5 entries in git's order; with `limit`, only the first `limit` are decoded. */
export function parseTreeRecords(bytes: Uint8Array, dir: string, limit = Infinity): TreeEntry[] {
  const prefix = dir === '' ? '' : `${dir}/`;
  const entries: TreeEntry[] = [];
  eachRecord(limit === Infinity ? bytes : bytes.subarray(0, endOfRecords(bytes, limit)), (mode, type, sha, size, name) => {
    entries.push({ name, path: prefix + name, type, mode, sha, size: size === '-' ? null : Number(size) });
  });
  return entries;
}

/** How many `ls-tree -z` records `bytes` holds: its NULs, and a last record without one. */
export function countTreeRecords(bytes: Uint8Array): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  let at = buf.indexOf(0);
  let last = -1;
  while (at !== -1) {
    count++;
    last = at;
    at = buf.indexOf(0, at + 1);
  }
  return last === buf.length - 1 || buf.length === 0 ? count : count + 1;
}
