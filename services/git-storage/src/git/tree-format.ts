/**
 * Raw tree objects (`<mode> SP <name> NUL <20-byte id>`*) turned into the `git ls-tree --long -z`
 * record format, which crosses the gRPC hop as ready-made bytes (storage.proto ReadTreeResponse).
 */
export interface RawTreeEntry {
  mode: string;
  name: Buffer;
  oid: string;
}

export function parseRawTree(raw: Buffer): RawTreeEntry[] {
  const entries: RawTreeEntry[] = [];
  let i = 0;
  while (i < raw.length) {
    const sp = raw.indexOf(0x20, i);
    const nul = raw.indexOf(0, sp + 1);
    if (sp < 0 || nul < 0 || nul + 21 > raw.length) throw new Error('corrupt tree object');
    entries.push({ mode: raw.toString('latin1', i, sp).padStart(6, '0'), name: raw.subarray(sp + 1, nul), oid: raw.toString('hex', nul + 1, nul + 21) });
    i = nul + 21;
  }
  return entries;
}

/** git's object type for a tree entry mode. */
export function typeOfMode(mode: string): 'blob' | 'tree' | 'commit' {
  if (mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}

/** `<mode> SP <type> SP <oid> SP <size, right-aligned to 7> TAB <name> NUL`, exactly as ls-tree --long -z. */
export function formatLsTree(entries: RawTreeEntry[], blobSizes: Map<string, number>): Buffer {
  // One allocation for the whole listing: large trees are the hot path of browsing.
  const heads = entries.map((e) => {
    const type = typeOfMode(e.mode);
    const size = type === 'blob' ? String(blobSizes.get(e.oid) ?? '-') : '-';
    return `${e.mode} ${type} ${e.oid} ${size.padStart(7)}\t`;
  });
  let total = 0;
  for (let i = 0; i < entries.length; i++) total += heads[i]!.length + entries[i]!.name.length + 1;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < entries.length; i++) {
    at += out.write(heads[i]!, at, 'latin1');
    at += entries[i]!.name.copy(out, at);
    out[at++] = 0;
  }
  return out;
}

/** Parses ls-tree --long -z records back (for tests and readers). */
export function parseLsTree(bytes: Buffer): Array<{ mode: string; type: string; oid: string; size: number | null; name: string }> {
  const out: Array<{ mode: string; type: string; oid: string; size: number | null; name: string }> = [];
  for (const rec of bytes.toString('utf8').split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode, type, oid, size] = rec.slice(0, tab).trim().split(/ +/);
    out.push({ mode: mode!, type: type!, oid: oid!, size: size === '-' ? null : Number(size), name: rec.slice(tab + 1) });
  }
  return out;
}
