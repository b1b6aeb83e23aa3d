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

export interface BranchRecord {
  name: string;
  sha: string;
  isDefault: boolean;
}

/** seed §4 browsing rule 7: every refs/heads/* with isDefault, in name order. */
export function branchList(refs: RefSet, defaultBranch: string): { branches: BranchRecord[]; default_branch: string } {
  const branches = [...refs.branches].map(([name, sha]) => ({ name, sha, isDefault: name === defaultBranch }));
  branches.sort((a, b) => compareNames(a.name, b.name));
  return { branches, default_branch: defaultBranch };
}

export interface TagRecord {
  name: string;
  sha: string;
  tag_sha?: string;
}

/** CONTRACT §8/§9 tags: peeled to the commit, plus tag_sha for annotated tags. */
export function tagList(refs: RefSet): { tags: TagRecord[] } {
  const tags = [...refs.tags].map(([name, t]) => (t.tagSha ? { name, sha: t.sha, tag_sha: t.tagSha } : { name, sha: t.sha }));
  tags.sort((a, b) => compareNames(a.name, b.name));
  return { tags };
}

/** Byte order, as git sorts ref names. */
function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
