import { isFullOid } from '@githost/git-records/object-id';
import { notFound, validation } from '@githost/errors';
import type { RefSet } from './refs.js';

/** How a ref was recognised; `sha` refs address an immutable commit. */
export type RefKind = 'branch' | 'tag' | 'sha';

export interface ResolvedRef {
  /** The ref as the request named it (echoed in responses). */
  ref: string;
  kind: RefKind;
  /** Commit for branches and tags; the 40-hex itself for `sha` (git-storage confirms it exists). */
  sha: string;
}

export interface RefAndPath {
  ref: ResolvedRef;
  path: string;
}


/** CONTRACT §9: a path remainder is percent-decoded exactly once. */
export function decodePathOnce(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw validation('Invalid path encoding');
  }
  // A NUL can name nothing in git and would truncate C strings downstream.
  if (decoded.includes('\0')) throw validation('Invalid path');
  return decoded;
}

/**
 * CONTRACT §9: the remainder is percent-decoded exactly once, then split on `/`; empty segments
 * (leading, doubled or trailing slashes) are ignored.
 */
export function decodeSegments(raw: string): string[] {
  return decodePathOnce(raw).split('/').filter((s) => s !== '');
}

/**
 * `.` and `..` can never name a tree entry (git refuses them in trees), so such a path is simply
 * not found (CONTRACT §4), and it is refused here, before it could reach anything that resolves it.
 */
export function checkPathSegments(segments: readonly string[]): string {
  const path = segments.join('/');
  if (segments.some((s) => s === '.' || s === '..')) throw notFound(`Path not found: ${path}`);
  return path;
}

function refNamed(name: string, refs: RefSet): ResolvedRef | undefined {
  // CONTRACT §9: a branch beats a tag of the same name.
  const branch = refs.branches.get(name);
  if (branch !== undefined) return { ref: name, kind: 'branch', sha: branch };
  const tag = refs.tags.get(name);
  if (tag !== undefined) return { ref: name, kind: 'tag', sha: tag.sha };
  return undefined;
}

/**
 * A ref is a branch name, a tag name or a full 40-hex commit id, nothing else: revision
 * expressions (`main~1`, `main^`, `HEAD@{1}`), `HEAD`, abbreviated ids and anything option-like
 * are not refs and answer `Ref not found`. They never reach git at all.
 */
export function resolveRefName(name: string, refs: RefSet): ResolvedRef {
  const named = refNamed(name, refs);
  if (named) return named;
  if (isFullOid(name)) return { ref: name, kind: 'sha', sha: name };
  throw notFound(`Ref not found: ${name}`);
}

/**
 * seed §4 browsing rule 2: empty -> default branch and empty path; else the longest leading run
 * of segments naming a branch or tag; else a 40-lowercase-hex first segment; else the first
 * segment (which then names nothing, so `Ref not found`).
 */
export function resolveRefAndPath(raw: string, refs: RefSet, defaultBranch: string): RefAndPath {
  const segments = decodeSegments(raw);
  if (segments.length === 0) return { ref: defaultBranchRef(refs, defaultBranch), path: '' };
  for (let n = segments.length; n >= 1; n--) {
    const named = refNamed(segments.slice(0, n).join('/'), refs);
    if (named) return { ref: named, path: checkPathSegments(segments.slice(n)) };
  }
  const first = segments[0] as string;
  const path = checkPathSegments(segments.slice(1));
  return { ref: resolveRefName(first, refs), path };
}

/** seed §4 browsing rule 5: the whole remainder is the ref; empty means the default branch. */
export function resolveCommitsRef(raw: string, refs: RefSet, defaultBranch: string): ResolvedRef {
  const segments = decodeSegments(raw);
  if (segments.length === 0) return defaultBranchRef(refs, defaultBranch);
  return resolveRefName(segments.join('/'), refs);
}

/** git-storage (like git) holds no full ref name longer than this; a longer candidate names nothing. */
const MAX_REF_NAME = 1024;

/**
 * The ref prefixes that can hold whatever ref a request may name, so only those refs are loaded
 * (a repository with thousands of tags sends a handful, not all). Every rule 2 candidate starts
 * with the first segment, so `refs/heads/<first>` and `refs/tags/<first>` cover them all; rule 5
 * names one whole ref. An empty list means no ref can match.
 */
export function refPrefixes(raw: string, defaultBranch: string, whole: boolean): string[] {
  const segments = decodeSegments(raw);
  if (segments.length === 0) return [`refs/heads/${defaultBranch}`];
  return prefixesOfName(whole ? segments.join('/') : (segments[0] as string));
}

/** The prefixes holding a branch or tag called `name` (already decoded), or starting with it. */
export function prefixesOfName(name: string): string[] {
  // Only prefixes a ref could have: git-storage refuses longer ones, and ref reads are shared
  // between requests (FreshRefs), so one request's refusal must not become everyone's.
  return [`refs/heads/${name}`, `refs/tags/${name}`].filter((p) => p.length <= MAX_REF_NAME);
}

function defaultBranchRef(refs: RefSet, defaultBranch: string): ResolvedRef {
  const sha = refs.branches.get(defaultBranch);
  // CONTRACT §9: an empty repository has no default branch yet.
  if (sha === undefined) throw notFound(`Ref not found: ${defaultBranch}`);
  return { ref: defaultBranch, kind: 'branch', sha };
}
