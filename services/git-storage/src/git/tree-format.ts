/**
 * Raw tree objects (`<mode> SP <name> NUL <20-byte id>`*) turned into the `git ls-tree --long -z`
 * record format, which crosses the gRPC hop as ready-made bytes (storage.proto ReadTreeResponse).
 *
 * Large trees are the hot path of browsing (100,000 entries), so nothing here makes an object,
 * a string or a promise per entry: one pass records where each entry's name lies in typed arrays,
 * the blob `info` commands and the listing are each written into one buffer of the exact size.
 */

// Entry kinds, in the order of MODES/HEADS: git's canon_mode() makes every tree entry one of these.
const KIND_REGULAR = 0;
const KIND_EXECUTABLE = 1;
const KIND_SYMLINK = 2;
const KIND_TREE = 3;
const KIND_GITLINK = 4;
const MODES = ['100644', '100755', '120000', '040000', '160000'];
// `<mode> SP <type> SP` of each kind, ready to copy.
const HEADS = ['100644 blob ', '100755 blob ', '120000 blob ', '040000 tree ', '160000 commit '].map((h) => Buffer.from(h, 'latin1'));
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const FLUSH = Buffer.from('flush\n', 'latin1');
/** ls-tree right-aligns sizes to 7 columns. */
const SIZE_WIDTH = 7;
const DASH = 0x2d;
const SPACE = 0x20;
// The smallest possible entry: a 1-digit mode, a space, a 1-byte name, NUL, 20-byte id.
const MIN_ENTRY = 24;

export interface TreeIndex {
  /** Entries indexed: the first ones, up to the limit asked. */
  count: number;
  /** Entries of the whole tree. */
  total: number;
  /** Indexed entries that are blobs (regular files, executables, symlinks): the ones with a size. */
  blobs: number;
  /** Offset of each entry's name in the raw tree; the name ends at nameEnd, its NUL. */
  nameStart: Int32Array;
  nameEnd: Int32Array;
  kind: Uint8Array;
}

function corrupt(): Error {
  return new Error('corrupt tree object');
}

/** git's canon_mode(): regular files keep only the executable bit; anything unknown is a gitlink. */
function kindOfMode(mode: number): number {
  switch (mode & 0o170000) {
    case 0o100000:
      return mode & 0o100 ? KIND_EXECUTABLE : KIND_REGULAR;
    case 0o120000:
      return KIND_SYMLINK;
    case 0o040000:
      return KIND_TREE;
    default:
      return KIND_GITLINK;
  }
}

/** The most entries a raw tree of `rawBytes` bytes can hold. */
export function mostEntriesOf(rawBytes: number): number {
  return Math.floor(rawBytes / MIN_ENTRY);
}

/**
 * Where the first `upTo` entries of a raw tree lie (every entry by default), in one pass and three
 * typed arrays, and how many entries it has. Past `upTo` entries are only counted, by a byte loop
 * to each name's NUL: indexing 100,000 entries cost 30-100 ms, which a bounded read
 * (docs/decisions/big-pages.md#bounded-tree-read) must not pay for entries it does not show.
 */
export function indexTree(raw: Buffer, upTo = Infinity): TreeIndex {
  const cap = Math.min(mostEntriesOf(raw.length) + 1, upTo);
  const nameStart = new Int32Array(cap);
  const nameEnd = new Int32Array(cap);
  const kind = new Uint8Array(cap);
  let count = 0;
  let blobs = 0;
  let i = 0;
  for (; i < raw.length && count < upTo; ) {
    const sp = raw.indexOf(SPACE, i);
    if (sp <= i) throw corrupt();
    let mode = 0;
    for (let j = i; j < sp; j++) {
      const digit = raw[j]! - 0x30;
      if (digit < 0 || digit > 7) throw corrupt();
      mode = mode * 8 + digit;
    }
    const nul = raw.indexOf(0, sp + 1);
    if (nul < 0 || nul + 21 > raw.length) throw corrupt();
    const k = kindOfMode(mode);
    if (k <= KIND_SYMLINK) blobs++;
    kind[count] = k;
    nameStart[count] = sp + 1;
    nameEnd[count] = nul;
    count++;
    i = nul + 21;
  }
  let total = count;
  while (i < raw.length) {
    let nul = i;
    while (nul < raw.length && raw[nul] !== 0) nul++;
    if (nul + 21 > raw.length) throw corrupt();
    total++;
    i = nul + 21;
  }
  return { count, total, blobs, nameStart, nameEnd, kind };
}

// Small copies are byte loops: a native Buffer.copy per entry cost more than the bytes it moved.
function writeHex(out: Buffer, at: number, raw: Buffer, from: number): number {
  for (let k = from; k < from + 20; k++) {
    const b = raw[k]!;
    out[at++] = HEX[b >> 4]!;
    out[at++] = HEX[b & 15]!;
  }
  return at;
}

/** `info <oid>\n` for every blob entry, then `flush\n`: the whole size lookup as one write. */
export function blobInfoCommands(raw: Buffer, index: TreeIndex): Buffer {
  const out = Buffer.allocUnsafe(index.blobs * 46 + FLUSH.length);
  let at = 0;
  for (let e = 0; e < index.count; e++) {
    if (index.kind[e]! > KIND_SYMLINK) continue;
    out[at++] = 0x69; // i
    out[at++] = 0x6e; // n
    out[at++] = 0x66; // f
    out[at++] = 0x6f; // o
    out[at++] = SPACE;
    at = writeHex(out, at, raw, index.nameEnd[e]! + 1);
    out[at++] = 0x0a;
  }
  FLUSH.copy(out, at);
  return out;
}

/** The size in an `<oid> <type> <size>` answer line; -1 for `<name> missing` (printed as `-`). */
export function sizeOfInfoLine(buf: Buffer, start: number, end: number): number {
  let size = 0;
  let scale = 1;
  let i = end - 1;
  for (; i > start; i--) {
    const digit = buf[i]! - 0x30;
    if (digit < 0 || digit > 9) break;
    size += digit * scale;
    scale *= 10;
  }
  return i < end - 1 && buf[i] === SPACE ? size : -1;
}

function digitsOf(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/**
 * `<mode> SP <type> SP <oid> SP <size, right-aligned to 7> TAB <name> NUL` per entry, exactly as
 * `git ls-tree --long -z`; `blobSizes` holds the blob entries' sizes in tree order (-1: unknown).
 * Here entries `from` to `to` (exclusive), `firstBlob` the index in `blobSizes` of the first blob
 * among them: the pieces of consecutive ranges joined are exactly the whole listing's bytes.
 */
export function formatEntries(raw: Buffer, index: TreeIndex, blobSizes: Float64Array, from: number, to: number, firstBlob: number): Buffer {
  const { kind, nameStart, nameEnd } = index;
  let total = 0;
  for (let e = from, b = firstBlob; e < to; e++) {
    const k = kind[e]!;
    const size = k <= KIND_SYMLINK ? blobSizes[b++]! : -1;
    const width = size < 0 ? SIZE_WIDTH : Math.max(SIZE_WIDTH, digitsOf(size));
    total += HEADS[k]!.length + 40 + 1 + width + 1 + (nameEnd[e]! - nameStart[e]!) + 1;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let e = from, b = firstBlob; e < to; e++) {
    const k = kind[e]!;
    const size = k <= KIND_SYMLINK ? blobSizes[b++]! : -1;
    const head = HEADS[k]!;
    for (let j = 0; j < head.length; j++) out[at++] = head[j]!;
    at = writeHex(out, at, raw, nameEnd[e]! + 1);
    out[at++] = SPACE;
    const digits = size < 0 ? 1 : digitsOf(size);
    for (let pad = SIZE_WIDTH - digits; pad > 0; pad--) out[at++] = SPACE;
    if (size < 0) {
      out[at++] = DASH;
    } else {
      let n = size;
      for (let d = at + digits - 1; d >= at; d--) {
        out[d] = 0x30 + (n % 10);
        n = Math.floor(n / 10);
      }
      at += digits;
    }
    out[at++] = 0x09;
    const from = nameStart[e]!;
    const to = nameEnd[e]!;
    if (to - from <= 32) for (let j = from; j < to; j++) out[at++] = raw[j]!;
    else at += raw.copy(out, at, from, to);
    out[at++] = 0;
  }
  return out;
}

/**
 * The end of the piece of entries starting at `from` whose records take about `maxBytes` (at
 * least one entry; a size of more than 7 digits widens a record past the estimate), and how many
 * of its entries are blobs, whose sizes must be read before it is formatted.
 */
export function pieceOfEntries(index: TreeIndex, from: number, maxBytes: number): { to: number; blobs: number } {
  let bytes = 0;
  let blobs = 0;
  let e = from;
  for (; e < index.count; e++) {
    const k = index.kind[e]!;
    const len = HEADS[k]!.length + 40 + 1 + SIZE_WIDTH + 1 + (index.nameEnd[e]! - index.nameStart[e]!) + 1;
    if (e > from && bytes + len > maxBytes) break;
    bytes += len;
    if (k <= KIND_SYMLINK) blobs++;
  }
  return { to: e, blobs };
}

/** The entry called `name` in a raw tree (mode as ls-tree prints it, id), without indexing the rest. */
export function findEntry(raw: Buffer, name: Buffer): { mode: string; oid: string } | undefined {
  for (let i = 0; i < raw.length; ) {
    const sp = raw.indexOf(SPACE, i);
    const nul = sp < 0 ? -1 : raw.indexOf(0, sp + 1);
    if (sp <= i || nul < 0 || nul + 21 > raw.length) throw corrupt();
    if (nul - sp - 1 === name.length && raw.compare(name, 0, name.length, sp + 1, nul) === 0) {
      const mode = Number.parseInt(raw.toString('latin1', i, sp), 8);
      if (Number.isNaN(mode)) throw corrupt();
      return { mode: MODES[kindOfMode(mode)]!, oid: raw.toString('hex', nul + 1, nul + 21) };
    }
    i = nul + 21;
  }
  return undefined;
}
