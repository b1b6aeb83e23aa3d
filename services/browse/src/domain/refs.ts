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
