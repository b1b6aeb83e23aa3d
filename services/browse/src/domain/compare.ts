import { validation } from '@githost/errors';
import type { Comparison, Diff, DiffEntry } from './ports.js';
import { decodePathOnce } from './ref-and-path.js';

/** At most this many commits in a compare (as GitHub's compare API lists). */
export const COMPARE_MAX_COMMITS = 250;

/** CONTRACT §5 diff limits, the merge-request detail's. */
export const DIFF_LIMITS = {
  maxFiles: 3000,
  maxPatchBytes: 1024 * 1024,
  /** Keeps a 3000-file answer bounded, as the merge-request detail does. */
  maxTotalPatchBytes: 32 * 1024 * 1024,
};

export type CompareStatus = 'ahead' | 'behind' | 'diverged' | 'identical';

/**
 * `{base}...{head}`, percent-decoded once (as ref_and_path, CONTRACT §9) and split on the first
 * `...`: git refuses `..` inside a ref name, so the first `...` is always the separator. Each side
 * is a whole ref name (slashes allowed, empty segments ignored) or a 40-hex id.
 */
export function parseCompareSpec(raw: string): { base: string; head: string } {
  const decoded = decodePathOnce(raw);
  const at = decoded.indexOf('...');
  if (at === -1) throw validation('Compare must be written {base}...{head}');
  const side = (s: string) => s.split('/').filter((segment) => segment !== '').join('/');
  const base = side(decoded.slice(0, at));
  const head = side(decoded.slice(at + 3));
  if (base === '' || head === '') throw validation('Compare must be written {base}...{head}');
  return { base, head };
}

export function compareStatus(aheadBy: number, behindBy: number): CompareStatus {
  if (aheadBy > 0 && behindBy > 0) return 'diverged';
  if (aheadBy > 0) return 'ahead';
  if (behindBy > 0) return 'behind';
  return 'identical';
}

const json = JSON.stringify;

/** The part of a compare answer that depends only on the two commits (cacheable by their ids). */
export function compareFields(cmp: Comparison, diff: Diff, commitJson: (oid: string, raw: Uint8Array) => string): string {
  return [
    `"merge_base":${json(cmp.mergeBase)}`,
    `"status":"${compareStatus(cmp.aheadBy, cmp.behindBy)}"`,
    `"ahead_by":${cmp.aheadBy}`,
    `"behind_by":${cmp.behindBy}`,
    `"commits":[${cmp.commits.map((c) => commitJson(c.oid, c.raw)).join(',')}]`,
    `"diff":${json(diff.files.map(diffEntryJson))}`,
    `"diff_truncated":${diff.truncated}`,
  ].join(',');
}

/** Fixed key order (CONTRACT §5), whatever the adapter built. */
function diffEntryJson(e: DiffEntry): DiffEntry {
  return {
    path: e.path,
    old_path: e.old_path,
    status: e.status,
    old_mode: e.old_mode,
    new_mode: e.new_mode,
    old_sha: e.old_sha,
    new_sha: e.new_sha,
    additions: e.additions,
    deletions: e.deletions,
    binary: e.binary,
    patch: e.patch,
  };
}
