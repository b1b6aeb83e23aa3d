/**
 * Byte order of the UTF-8 names, as git sorts ref names (for-each-ref, packed-refs), without
 * encoding them: UTF-8 byte order is code point order, which differs from UTF-16 code unit order
 * only where a surrogate (a code point past U+FFFF) meets a unit from U+E000 up.
 */
export function compareNames(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xs = x >= 0xd800 && x <= 0xdfff;
  const ys = y >= 0xd800 && y <= 0xdfff;
  if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
  return x - y;
}

/**
 * Where `name` is, or would go, in `sorted` (ordered by compareNames): a binary search. Every
 * name starting with a prefix lies from the prefix's place on, one after the other.
 */
export function nameIndex(sorted: ReadonlyArray<{ name: string }>, name: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareNames(sorted[mid]!.name, name) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
