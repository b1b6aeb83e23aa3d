import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@githost/logging';
import { OOM_SCORE_ADJ_MAX, runGit } from '../git/command.js';
import { commitGraphState, readCommitGraph } from './commit-graph-layers.js';
import { BYTES_PER_COMMIT, BYTES_PER_OBJECT, defaultHousekeepingMemory, DELTA_BASE_CACHE_BYTES, SMALL_DELTA_BASE_CACHE } from './memory-budget.js';

/** How long after a first look a quarantine written since the start is looked at again. */
const ORPHAN_RECHECK_MS = 5_000;

export interface HousekeepingOptions {
  /** Quiet time after the last ref update before housekeeping runs (debounce). */
  delayMs?: number;
  /** Loose refs beyond which refs are packed. */
  looseRefsLimit?: number;
  /** Loose objects beyond which they are packed (with the small packs: geometric repack). */
  looseObjectsLimit?: number;
  /** Packs beyond which everything is repacked into one (cruft pack aside, with a bitmap). */
  packsLimit?: number;
  /** Repositories housekept at once in this process; the others wait their turn. */
  concurrency?: number;
  /** Longest one git step of housekeeping may run before it is killed. */
  stepTimeoutMs?: number;
  /**
   * Memory one housekeeping git may take: a step whose git would need more for this repository's
   * objects or commits (BYTES_PER_OBJECT, BYTES_PER_COMMIT) is left out and said so
   * (docs/decisions/housekeeping.md#memory).
   * Default: half the container's memory limit, unbounded without one.
   */
  memoryBytes?: number;
}

/** What housekeeping does without options (the HOUSEKEEPING_* settings default to it). */
export const HOUSEKEEPING_DEFAULTS: Required<Omit<HousekeepingOptions, 'memoryBytes'>> = { delayMs: 2_000, looseRefsLimit: 64, looseObjectsLimit: 1024, packsLimit: 16, concurrency: 1, stepTimeoutMs: 10 * 60_000 };

/** The kernel's choice when memory runs out: a housekeeping git goes first, before a clone's git
 *  (clientGitOomScoreAdj) or git-storage, and the next run tries again. */
export const HOUSEKEEPING_OOM_SCORE_ADJ = OOM_SCORE_ADJ_MAX;

/** How much lower housekeeping's git runs in CPU priority than the service (nice increment). */
export const HOUSEKEEPING_NICENESS = 10;

/** Lock files older than this belong to a git that died (a ref update holds one for milliseconds). */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * Gitaly-style housekeeping after ref updates (docs/decisions/housekeeping.md): keep the
 * commit-graph current (incremental, split, with Bloom filters: merges and merge-bases are several
 * times slower without it), roll loose objects and small packs into a geometric progression
 * (`repack --geometric=2`, with a multi-pack index and its bitmap), everything into one pack with a
 * bitmap past `packsLimit` packs, pack refs past `looseRefsLimit`. Debounced per repository, never
 * concurrent with itself on one repository, `concurrency` repositories at once, and each step
 * starts only while no push is in flight on the repository. git writes its results with atomic
 * renames, so readers are never disturbed, and a step killed midway leaves only temporary files
 * and locks, which the next run removes before it starts.
 */
export class Housekeeper {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly rerun = new Set<string>();
  private stopped = false;
  /** Aborted by stop(): the git a step is running is killed, which leaves a valid repository
   *  (docs/decisions/housekeeping.md), instead of holding the shutdown for up to a step's timeout. */
  private readonly stopping = new AbortController();
  /** Completed runs per repository (for tests and debugging). */
  readonly runs = new Map<string, number>();
  /** The steps the last run on each repository took, in order (for tests and debugging). */
  readonly lastSteps = new Map<string, string[]>();
  private readonly opts: Required<HousekeepingOptions>;
  /** Runs holding one of the `concurrency` slots, and the ones waiting for a slot. */
  private active = 0;
  private readonly waitingForSlot: Array<() => void> = [];
  /** Per repository, who waits for its pushes in flight to end. */
  private readonly waitingForPushes = new Map<string, Array<() => void>>();

  constructor(
    private readonly logger: Logger,
    opts: HousekeepingOptions = {},
  ) {
    const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
    this.opts = { ...HOUSEKEEPING_DEFAULTS, memoryBytes: defaultHousekeepingMemory(), ...given };
  }

  private readonly checked = new Set<string>();
  /** Leftovers older than this process belong to a push that a killed process never finished; the
   *  margin covers file systems whose timestamps run behind the wall clock by a few ticks. */
  private readonly abandonedBeforeMs = Date.now() - 2_000;

  /** Whether this process already looked at the repository. */
  seen(gitDir: string): boolean {
    return this.checked.has(gitDir);
  }

  /**
   * First use of a repository in this process. One that reached the disk some other way (restored,
   * imported, pushed over file://) gets its commit-graph, with Bloom filters, written soon instead
   * of after its next push; the quarantine and temporary packs of a push that a killed process left behind are
   * removed (git removes its own only when it exits normally).
   */
  onFirstUse(gitDir: string): void {
    if (this.checked.has(gitDir)) return;
    this.checked.add(gitDir);
    this.pruneAbandonedPushes(gitDir).catch((err: unknown) => this.logger.warn({ err, git_dir: gitDir }, 'removing an abandoned push failed'));
    void commitGraphState(gitDir).then((graph) => {
      if (graph !== 'with-filters') this.schedule(gitDir);
    });
  }

  /** Removes `objects/tmp_objdir-*` quarantines and `tmp_*` packs last written before this process started. */
  async pruneAbandonedPushes(gitDir: string): Promise<string[]> {
    const objects = path.join(gitDir, 'objects');
    const candidates = [
      ...(await namesIn(objects)).filter((n) => n.startsWith('tmp_objdir-')).map((n) => path.join(objects, n)),
      ...(await namesIn(path.join(objects, 'pack'))).filter((n) => n.startsWith('tmp_')).map((n) => path.join(objects, 'pack', n)),
    ];
    const removed: string[] = [];
    const later: string[] = [];
    for (const p of candidates) {
      const s = await stat(p).catch(() => undefined);
      if (!s) continue;
      if (s.mtimeMs >= this.abandonedBeforeMs) {
        // Only receive-pack makes quarantines; a temporary pack may be a running repack's.
        if (path.basename(p).startsWith('tmp_objdir-')) later.push(p);
        continue;
      }
      await rm(p, { recursive: true, force: true });
      removed.push(p);
    }
    if (removed.length > 0) this.logger.info({ git_dir: gitDir, removed: removed.length }, 'removed what killed pushes left behind');
    // Written since this process started: a push of ours, or a receive-pack of the killed process
    // that outlived it for a moment. Looked at again later: if no push of ours is in flight then,
    // nothing that existed now can still belong to a live push.
    if (later.length > 0 && !this.stopped) {
      const t = setTimeout(() => {
        if (this.pushing.has(gitDir)) return;
        Promise.all(later.map((p) => rm(p, { recursive: true, force: true })))
          .then(() => this.logger.info({ git_dir: gitDir, removed: later.length }, 'removed what a killed process\'s pushes left behind'))
          .catch((err: unknown) => this.logger.warn({ err, git_dir: gitDir }, 'removing an abandoned push failed'));
      }, ORPHAN_RECHECK_MS);
      t.unref();
    }
    return removed;
  }

  private readonly pushing = new Map<string, number>();

  /**
   * A receive-pack starts on `gitDir`; call the returned function once it ended with its stdio
   * closed (so no child of it still writes). git removes its quarantine only when it ends on its
   * own: one stopped because its client went away, or whose unpacker was cut off mid-object,
   * leaves `objects/tmp_objdir-*` behind in a service that keeps running. Once no other push is in
   * flight on the repository (one process serves a repository), any quarantine in it is abandoned.
   */
  pushStarted(gitDir: string): (succeeded: boolean) => Promise<string[]> {
    this.pushing.set(gitDir, (this.pushing.get(gitDir) ?? 0) + 1);
    let ended = false;
    return async (succeeded) => {
      if (ended) return [];
      ended = true;
      const left = (this.pushing.get(gitDir) ?? 1) - 1;
      if (left > 0) this.pushing.set(gitDir, left);
      else {
        this.pushing.delete(gitDir);
        const waiting = this.waitingForPushes.get(gitDir) ?? [];
        this.waitingForPushes.delete(gitDir);
        for (const wake of waiting) wake();
      }
      if (succeeded || left > 0) return [];
      const objects = path.join(gitDir, 'objects');
      const removed = (await namesIn(objects)).filter((n) => n.startsWith('tmp_objdir-')).map((n) => path.join(objects, n));
      // Another push may have started meanwhile: only what is still unclaimed goes.
      if (this.pushing.has(gitDir)) return [];
      await Promise.all(removed.map((p) => rm(p, { recursive: true, force: true })));
      if (removed.length > 0) this.logger.info({ git_dir: gitDir, removed: removed.length }, 'removed the quarantine of a push that did not finish');
      return removed;
    };
  }

  /** The repository was removed: a new one at the same path is looked at afresh. */
  forget(gitDir: string): void {
    this.checked.delete(gitDir);
    clearTimeout(this.timers.get(gitDir));
    this.timers.delete(gitDir);
  }

  schedule(gitDir: string): void {
    if (this.stopped) return;
    clearTimeout(this.timers.get(gitDir));
    const t = setTimeout(() => {
      this.timers.delete(gitDir);
      this.start(gitDir);
    }, this.opts.delayMs);
    t.unref();
    this.timers.set(gitDir, t);
  }

  /** Runs now (or after the current run, once more), resolving when done. */
  runNow(gitDir: string): Promise<void> {
    clearTimeout(this.timers.get(gitDir));
    this.timers.delete(gitDir);
    this.start(gitDir);
    return this.whenIdle(gitDir);
  }

  async whenIdle(gitDir: string): Promise<void> {
    while (this.running.has(gitDir)) await this.running.get(gitDir);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    // Runs waiting for a slot or for pushes give up (optimize checks `stopped`).
    for (const wake of this.waitingForSlot.splice(0)) wake();
    for (const [, waiting] of this.waitingForPushes) for (const wake of waiting) wake();
    this.waitingForPushes.clear();
    await Promise.all([...this.running.values()]);
  }

  /** Resolves once no push is in flight on `gitDir` (at once when none is). */
  private noPush(gitDir: string): Promise<void> {
    if (!this.pushing.has(gitDir) || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const waiting = this.waitingForPushes.get(gitDir) ?? [];
      waiting.push(resolve);
      this.waitingForPushes.set(gitDir, waiting);
    });
  }

  private async slot(): Promise<void> {
    while (this.active >= this.opts.concurrency && !this.stopped) await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
    this.active++;
  }

  private release(): void {
    this.active--;
    this.waitingForSlot.shift()?.();
  }

  private start(gitDir: string): void {
    if (this.running.has(gitDir)) {
      this.rerun.add(gitDir);
      return;
    }
    const run = this.optimize(gitDir)
      .catch((err: unknown) => {
        if (this.stopped) this.logger.info({ git_dir: gitDir }, 'housekeeping stopped with the service; a later run starts over');
        else this.logger.warn({ err, git_dir: gitDir }, 'housekeeping failed');
      })
      .finally(() => {
        this.runs.set(gitDir, (this.runs.get(gitDir) ?? 0) + 1);
        this.running.delete(gitDir);
        if (this.rerun.delete(gitDir) && !this.stopped) this.start(gitDir);
      });
    this.running.set(gitDir, run);
  }

  private async optimize(gitDir: string): Promise<void> {
    await this.slot();
    try {
      if (this.stopped) return;
      await this.removeLeftovers(gitDir);
      // At a lower CPU priority: a push or clone arriving during a long step (the first bitmap of a
      // deep history takes a minute at 100k commits) gets the cores first
      // (docs/decisions/history-depth.md#pushes).
      const opts = { gitDir, timeoutMs: this.opts.stepTimeoutMs, niceness: HOUSEKEEPING_NICENESS, oomScoreAdj: HOUSEKEEPING_OOM_SCORE_ADJ, signal: this.stopping.signal };
      // Every step waits until no push is in flight: git copes with a push beside a repack, but a
      // push's own critical section (receive-pack, its ref transaction, its events) is not made
      // to share the disk and the cores with housekeeping.
      const done: string[] = [];
      const step = async (what: string, run: () => Promise<unknown>) => {
        await this.noPush(gitDir);
        if (this.stopped) return;
        await run();
        done.push(what);
      };
      let graph = await readCommitGraph(gitDir);
      const graphFlags = (split: string) => ['--reachable', split, '--size-multiple=4', '--no-progress'];
      if (graph.state === 'none') {
        // Until a repository has a commit-graph, every walk (a log, a compare, a merge base) parses
        // each commit it passes: a plain graph first, in seconds, before the bitmap and the Bloom
        // filters, which take a minute each at 100k commits (docs/decisions/history-depth.md#the-first-commit-graph).
        await step('commit-graph without filters', () => runGit({ name: 'commit-graph', action: 'write', flags: graphFlags('--split') }, opts));
        graph = await readCommitGraph(gitDir);
      }
      const stats = await objectStats(gitDir);
      // What git would need for this repository's objects, against the memory budget: a step that
      // does not fit is left out (and said so) rather than started to be killed by the kernel at
      // every run (docs/decisions/housekeeping.md#memory).
      const objects = stats.looseObjects + stats.inPack;
      const fits = (what: string, needs: number, counted: { objects: number } | { commits: number }) => {
        if (needs <= this.opts.memoryBytes) return true;
        done.push(`${what} left out (memory)`);
        this.logger.warn({ git_dir: gitDir, ...counted, needs_bytes: needs, budget_bytes: this.opts.memoryBytes }, `housekeeping: ${what} would need more memory than HOUSEKEEPING_MEMORY_BYTES allows; left out`);
        return false;
      };
      const fullRepack = stats.packs > this.opts.packsLimit && fits('full repack', objects * BYTES_PER_OBJECT.fullRepack, { objects });
      const bitmap = !fullRepack && objects > 0 && fits('bitmap', objects * BYTES_PER_OBJECT.bitmap, { objects });
      if (fullRepack) {
        // --cruft instead of -a: objects nothing references YET (a merge commit written before its
        // UpdateRef, a push whose refs are about to move) go to a cruft pack instead of being dropped.
        await step('full repack', () => runGit({ config: SMALL_DELTA_BASE_CACHE, name: 'repack', flags: ['--cruft', '--cruft-expiration=2.weeks.ago', '-d', '-b', '-q', '--write-midx'] }, opts));
      } else if (stats.looseObjects > this.opts.looseObjectsLimit || (stats.packs > 1 && !(await geometric(gitDir))) || (stats.packs > 0 && bitmap && !(await hasBitmap(gitDir)))) {
        // Loose objects and the smallest packs rolled into one, so that every pack is at least
        // twice the size of the next smaller: a push costs a repack of its own size, not of the
        // repository's, and the packs stay logarithmically few. The multi-pack index and its bitmap
        // serve clones as one pack's bitmap would. A repository whose packs have no bitmap (a
        // first push kept as one pack, as receive-pack leaves it) gets one here even when nothing
        // needs rolling up: without it every clone walks the whole history
        // (docs/decisions/history-depth.md#clones).
        // Without the bitmap when it does not fit: the packs still roll up, clones walk the history.
        const flags = ['--geometric=2', '-d', '-q', '--write-midx', ...(bitmap ? ['--write-bitmap-index'] : [])];
        await step(bitmap ? 'geometric repack' : 'geometric repack without bitmap', () => runGit({ config: SMALL_DELTA_BASE_CACHE, name: 'repack', flags }, opts));
      }
      if ((await countLooseRefs(path.join(gitDir, 'refs'))) > this.opts.looseRefsLimit) {
        await step('pack-refs', () => runGit({ name: 'pack-refs', flags: ['--all'] }, opts));
      }
      // A split write keeps the layers below it as they are: a chain with a layer written without
      // filters (the plain first graph, or one written elsewhere) is replaced whole, so that every
      // commit has its filter. That computes a filter for every commit, which does not fit every
      // budget: the layers then stay plain and the new commits go on top of them, as plain
      // (docs/decisions/housekeeping.md#memory). A chain with filters only computes the new ones'.
      const { commits } = graph;
      const filtered = graph.state === 'with-filters' || fits('changed-path filters', commits * BYTES_PER_COMMIT.changedPaths + DELTA_BASE_CACHE_BYTES, { commits });
      const split = graph.state === 'with-filters' || !filtered ? '--split' : '--split=replace';
      await step(filtered ? 'commit-graph' : 'commit-graph without filters', () =>
        runGit({ config: SMALL_DELTA_BASE_CACHE, name: 'commit-graph', action: 'write', flags: [...graphFlags(split), ...(filtered ? ['--changed-paths'] : [])] }, opts));
      this.lastSteps.set(gitDir, done);
      this.logger.info({ git_dir: gitDir, steps: done, loose_objects: stats.looseObjects, packs: stats.packs }, 'housekeeping done');
    } finally {
      this.release();
    }
  }

  /**
   * What a housekeeping git killed midway left (its temporary pack, commit-graph and multi-pack
   * index files, their locks): only housekeeping writes them, one run per repository at a time, so
   * at the start of a run none is in use. A `packed-refs.lock` is also taken by ref updates, for
   * milliseconds: it goes only when it is old.
   */
  private async removeLeftovers(gitDir: string): Promise<void> {
    const pack = path.join(gitDir, 'objects', 'pack');
    const info = path.join(gitDir, 'objects', 'info');
    const graphs = path.join(info, 'commit-graphs');
    const leftovers = [
      ...(await namesIn(pack)).filter((n) => n.startsWith('.tmp-') || n.endsWith('.lock')).map((n) => path.join(pack, n)),
      ...(await namesIn(info)).filter((n) => n.endsWith('.lock')).map((n) => path.join(info, n)),
      ...(await namesIn(graphs)).filter((n) => n.startsWith('tmp_graph_') || n.endsWith('.lock')).map((n) => path.join(graphs, n)),
    ];
    const packedRefsLock = path.join(gitDir, 'packed-refs.lock');
    const lock = await stat(packedRefsLock).catch(() => undefined);
    if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS) leftovers.push(packedRefsLock);
    if (leftovers.length === 0) return;
    await Promise.all(leftovers.map((p) => rm(p, { recursive: true, force: true })));
    this.logger.info({ git_dir: gitDir, removed: leftovers.length }, 'housekeeping: removed what an interrupted run left');
  }
}

/** Whether the packs already form a geometric progression (factor 2): then there is nothing to roll up. */
async function geometric(gitDir: string): Promise<boolean> {
  const dir = path.join(gitDir, 'objects', 'pack');
  const sizes: number[] = [];
  const names = new Set(await namesIn(dir));
  for (const n of names) {
    if (!n.endsWith('.pack') || n.startsWith('.tmp-')) continue;
    // A cruft pack (with .mtimes) holds what no ref reaches yet: not part of the progression.
    if (names.has(n.replace(/\.pack$/, '.mtimes'))) continue;
    const s = await stat(path.join(dir, n)).catch(() => undefined);
    if (s) sizes.push(s.size);
  }
  sizes.sort((a, b) => b - a);
  return sizes.every((size, i) => i === 0 || sizes[i - 1]! >= 2 * size);
}

/** Whether a reachability bitmap covers the packs: a pack's own (full repack) or the multi-pack index's. */
async function hasBitmap(gitDir: string): Promise<boolean> {
  return (await namesIn(path.join(gitDir, 'objects', 'pack'))).some((n) => n.endsWith('.bitmap') && !n.startsWith('.tmp-'));
}

async function objectStats(gitDir: string): Promise<{ looseObjects: number; inPack: number; packs: number }> {
  const { stdout } = await runGit({ name: 'count-objects', flags: ['-v'] }, { gitDir });
  const v = Object.fromEntries(
    stdout
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(': ') as [string, string]),
  );
  return { looseObjects: Number(v.count ?? 0), inPack: Number(v['in-pack'] ?? 0), packs: Number(v.packs ?? 0) };
}

async function countLooseRefs(dir: string): Promise<number> {
  let n = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) n += e.isDirectory() ? await countLooseRefs(path.join(dir, e.name)) : 1;
  return n;
}

async function namesIn(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}
