import { readFileSync } from 'node:fs';

/**
 * What housekeeping's git needs in memory, per object of the repository, measured on the scale
 * bench's 100,000-commit repository (1.02M objects; docs/decisions/housekeeping.md#memory): a full
 * repack's `pack-objects` 263 MiB of its own memory with `SMALL_DELTA_BASE_CACHE` (354 MiB without
 * it) beside 148 MiB of mapped pack, the multi-pack index's bitmap 199 MiB beside 35 MiB. Rounded
 * up: what git's object tables cost is its own and grows with the objects, whatever the settings.
 */
export const BYTES_PER_OBJECT = {
  /** `repack --cruft -d -b`: every object in one `pack-objects`. */
  fullRepack: 384,
  /** `--write-bitmap-index` with `--write-midx`: a bitmap over every object of every pack. */
  bitmap: 256,
} as const;

/**
 * The same per commit, for a commit-graph write that computes every commit's changed-path Bloom
 * filter (a chain replaced whole) with `SMALL_DELTA_BASE_CACHE`, on top of that cache: 53 MiB of its
 * own memory at 100k commits, 118 MiB at 300k, 318 MiB at 1M (the scale bench's history
 * repository; a plain write 28, 84 and 270 MiB, about 280 bytes a commit, which no setting lowers).
 * Less the cache's 16 MiB, 388, 357 and 317 bytes a commit: rounded up.
 */
export const BYTES_PER_COMMIT = {
  changedPaths: 400,
} as const;

/** The cache of inflated delta bases that housekeeping's git keeps (96 MiB by default). */
export const DELTA_BASE_CACHE_BYTES = 16 * 1024 * 1024;

/** The one setting that lowers housekeeping's git: that cache, which a repack fills with the packs'
 *  bases and a commit-graph write with the trees it diffs for the filters (pack-objects 354 -> 263
 *  MiB at 1.02M objects, the filtered commit-graph 143 -> 53 MiB at 100k commits).
 *  `pack.deltaCacheSize`, `pack.windowMemory` and `pack.threads=1` changed nothing: a repack reuses
 *  the packs' deltas. */
export const SMALL_DELTA_BASE_CACHE: Array<[string, string]> = [['core.deltaBaseCacheLimit', String(DELTA_BASE_CACHE_BYTES)]];

/** cgroup v2's and v1's memory limit files, in the order they are read. */
const CGROUP_LIMIT_FILES = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'];

/** v1 writes "no limit" as the largest page-aligned 64-bit value; anything past 2^60 is that. */
const NO_LIMIT_ABOVE = 2 ** 60;

/**
 * The memory limit of this process's cgroup (a Kubernetes container's `resources.limits.memory`),
 * or undefined when there is none or it cannot be read.
 */
export function cgroupMemoryLimit(read: (file: string) => string | undefined = readText): number | undefined {
  for (const file of CGROUP_LIMIT_FILES) {
    const text = read(file)?.trim();
    if (text === undefined) continue;
    if (text === 'max') return undefined;
    const bytes = Number(text);
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes < NO_LIMIT_ABOVE ? bytes : undefined;
  }
  return undefined;
}

/**
 * How much memory one housekeeping git may be expected to take when HOUSEKEEPING_MEMORY_BYTES is
 * not set: half the container's limit (git-storage itself, its cat-files and the clones' and
 * pushes' git share the rest), no bound without one (a machine's own memory, as `npm start`).
 */
export function defaultHousekeepingMemory(limit = cgroupMemoryLimit()): number {
  return limit === undefined ? Number.POSITIVE_INFINITY : Math.floor(limit / 2);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
