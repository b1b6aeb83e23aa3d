import { LRUCache } from 'lru-cache';
import { isFullOid } from '@githost/git-records/object-id';
import type { DiffLimits, GitPort } from '../domain/ports.js';
import type { Diff } from '../domain/types.js';

/** Bytes a kept diff holds, near enough: its text (one byte a character, V8 keeps ASCII so) and
 *  a flat allowance per file for the object, its shas, modes and numbers. */
export function diffBytes(diff: Diff): number {
  let bytes = 64;
  for (const f of diff.files) bytes += 256 + f.path.length + (f.old_path?.length ?? 0) + (f.patch?.length ?? 0);
  return bytes;
}

/**
 * The detail's diff between two commit ids never changes (docs/decisions/merge-request-page-diff.md#cache),
 * so it is computed once per (repository, base, head, limits) and then read from here: a warm
 * detail of a 10,000-file merge request is a lookup, not a git diff. Bounded in bytes; one diff
 * may take at most a quarter of it (a larger one is served but not kept). Concurrent misses on one
 * key share a single git call. Errors are not kept. Kept diffs are frozen: they are shared by
 * every reader.
 */
export class DiffCache {
  private readonly lru: LRUCache<string, Diff> | undefined;
  private readonly inFlight = new Map<string, Promise<Diff>>();

  constructor(maxBytes: number) {
    this.lru = maxBytes > 0 ? new LRUCache<string, Diff>({ maxSize: maxBytes, maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)), sizeCalculation: (d, k) => diffBytes(d) + k.length }) : undefined;
  }

  /** `git` with diff answered from this (shared) cache. */
  wrap(git: GitPort): GitPort {
    if (!this.lru) return git;
    return Object.assign(Object.create(git) as GitPort, {
      diff: (repoId: string, from: string, to: string, limits: DiffLimits) => this.diff(git, repoId, from, to, limits),
    });
  }

  /** Bytes held now (metrics, tests). */
  get sizeBytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  private diff(git: GitPort, repoId: string, from: string, to: string, limits: DiffLimits): Promise<Diff> {
    // A ref name would move: only a diff between two full commit ids is fixed forever.
    if (!isFullOid(from) || !isFullOid(to)) return git.diff(repoId, from, to, limits);
    const key = `${repoId}\0${from}\0${to}\0${limits.maxFiles}\0${limits.maxPatchBytes}\0${limits.maxTotalPatchBytes}`;
    const hit = this.lru?.get(key);
    if (hit) return Promise.resolve(hit);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const loading = git
      .diff(repoId, from, to, limits)
      .then((d) => {
        const kept = freeze(d);
        this.lru?.set(key, kept);
        return kept;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, loading);
    return loading;
  }
}

function freeze(d: Diff): Diff {
  for (const f of d.files) Object.freeze(f);
  Object.freeze(d.files);
  return Object.freeze(d);
}
