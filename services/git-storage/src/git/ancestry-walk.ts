import type { CatfilePool } from './catfile-pool.js';
import { readCommitObjects } from './objects.js';

/** Commits an ancestry walk reads at most before leaving the answer to `git merge-base`. */
export const ANCESTRY_WALK_BUDGET = 200;

interface Node {
  parents: string[];
  /** Committer time, seconds: only the order of the walk depends on it, never the answer. */
  time: number;
}

const FROM_DESCENDANT = 1;
const FROM_ANCESTOR = 2;

function nodeOf(raw: Buffer): Node {
  const text = raw.toString('latin1');
  const end = text.indexOf('\n\n');
  const parents: string[] = [];
  let time = 0;
  for (const line of (end < 0 ? text : text.slice(0, end)).split('\n')) {
    if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (line.startsWith('committer ')) time = Number(/ (\d+) [+-]\d{4}$/.exec(line)?.[1] ?? 0);
  }
  return { parents, time };
}

/**
 * Whether `ancestor` is reachable from `descendant` (both read commits, peeled), found through
 * the cat-file pool instead of a spawned `merge-base --is-ancestor` (bench/RESULTS.md "Merge
 * requests", fourth pass). Both histories are walked newest first, as git walks them without a
 * commit-graph. A commit reached from both sides is an ancestor of `ancestor`, so (history has no
 * cycles) nothing behind it can lead to `ancestor`: the walk ends once every commit still queued
 * from `descendant`'s side was also reached from `ancestor`'s. The answer is exact whatever the
 * dates say (they only order the walk, so skew costs reads, not correctness). Undefined when more
 * than `budget` commits would be read, or one cannot be read (shallow or damaged history): git
 * answers then.
 */
export async function walkAncestry(
  pool: CatfilePool,
  gitDir: string,
  ancestor: { oid: string; raw: Buffer },
  descendant: { oid: string; raw: Buffer },
  budget = ANCESTRY_WALK_BUDGET,
): Promise<boolean | undefined> {
  if (ancestor.oid === descendant.oid) return true;
  const nodes = new Map<string, Node>([
    [ancestor.oid, nodeOf(ancestor.raw)],
    [descendant.oid, nodeOf(descendant.raw)],
  ]);
  const flags = new Map<string, number>();
  const queued = new Set<string>();
  const reach = (oid: string, from: number) => {
    const had = flags.get(oid) ?? 0;
    if ((had | from) === had) return;
    flags.set(oid, had | from);
    queued.add(oid); // again when it gains a side: its parents must gain it too
  };
  reach(descendant.oid, FROM_DESCENDANT);
  reach(ancestor.oid, FROM_ANCESTOR);
  let reads = 0;
  while ([...queued].some((oid) => flags.get(oid) === FROM_DESCENDANT)) {
    const unread = [...queued].filter((oid) => !nodes.has(oid));
    if (unread.length > 0) {
      reads += unread.length;
      if (reads > budget) return undefined;
      let raws: Array<{ oid: string; raw: Buffer }>;
      try {
        raws = await readCommitObjects(pool, gitDir, unread);
      } catch {
        return undefined;
      }
      for (const r of raws) nodes.set(r.oid, nodeOf(r.raw));
      if (unread.some((oid) => !nodes.has(oid))) return undefined;
    }
    let newest: string | undefined;
    for (const oid of queued) if (newest === undefined || nodes.get(oid)!.time > nodes.get(newest)!.time) newest = oid;
    queued.delete(newest!);
    const from = flags.get(newest!)!;
    for (const parent of nodes.get(newest!)!.parents) {
      reach(parent, from);
      if (parent === ancestor.oid && (flags.get(parent)! & FROM_DESCENDANT) !== 0) return true;
    }
  }
  return false;
}
