/** A ref as git-storage lists it (fully qualified name). */
export interface RawRef {
  name: string;
  /** Object the ref points at: a tag object for annotated tags. */
  target: string;
  /** The commit an annotated tag peels to; empty otherwise. */
  peeled: string;
}

/** Branch and tag names of one repository, prefixes removed, each with the commit it names. */
export interface RefSet {
  branches: Map<string, string>;
  tags: Map<string, { sha: string; tagSha?: string }>;
}

const HEADS = 'refs/heads/';
const TAGS = 'refs/tags/';

export function buildRefSet(refs: readonly RawRef[]): RefSet {
  const set: RefSet = { branches: new Map(), tags: new Map() };
  for (const ref of refs) {
    if (ref.name.startsWith(HEADS)) set.branches.set(ref.name.slice(HEADS.length), ref.target);
    else if (ref.name.startsWith(TAGS)) {
      const name = ref.name.slice(TAGS.length);
      // CONTRACT §9 tags: sha is the commit; the tag object's own id only for annotated tags.
      set.tags.set(name, ref.peeled ? { sha: ref.peeled, tagSha: ref.target } : { sha: ref.target });
    }
  }
  return set;
}

/**
 * Byte order of the UTF-8 names, as git sorts ref names, without encoding them: UTF-8 byte
 * order is code point order, which differs from UTF-16 code unit order only where a surrogate
 * (a code point past U+FFFF) meets a unit from U+E000 up.
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
