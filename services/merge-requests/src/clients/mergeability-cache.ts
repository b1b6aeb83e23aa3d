import type { GitPort } from '../domain/ports.js';

type Mergeability = { clean: boolean; conflicts: string[] };

/**
 * Whether two commits merge cleanly never changes, so the detail endpoint need not run
 * `merge-tree` again for the same (target tip, source tip): a small LRU keyed by both shas.
 * Only clean/conflict answers are kept; errors always go back to git-storage.
 */
export class MergeabilityCache {
  private readonly entries = new Map<string, Mergeability>();

  constructor(private readonly maxEntries = 10_000) {}

  /** `git` with checkMerge answered from this (shared) cache. */
  wrap(git: GitPort): GitPort {
    return Object.assign(Object.create(git) as GitPort, {
      checkMerge: (repoId: string, ours: string, theirs: string) => this.check(git, repoId, ours, theirs),
    });
  }

  private async check(git: GitPort, repoId: string, ours: string, theirs: string): Promise<Mergeability> {
    const key = `${repoId}\n${ours}\n${theirs}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // re-insert: Map order is the recency order
      this.entries.set(key, hit);
      return hit;
    }
    const answer = await git.checkMerge(repoId, ours, theirs);
    this.entries.set(key, answer);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return answer;
  }
}
