import client from 'prom-client';
import { CatfileProcess } from './catfile-process.js';

export interface CatfilePoolOptions {
  /** Live processes across all repositories (Gitaly's cache size cap). */
  maxProcesses?: number;
  /**
   * Live processes of one repository. A request holds a process for tens of microseconds, so
   * fifty concurrent readers of one repository are served as fast by 8 as by 32 (measured: 1,000-
   * 1,140 small ReadTree/s at 50 concurrent with 2, 4, 8 or 32), and the rest is memory and spawns.
   */
  maxPerRepository?: number;
  /** An idle process older than this is reaped. */
  idleTtlMs?: number;
  registry?: client.Registry;
}

/**
 * Long-lived cat-file processes per repository (Gitaly's internal/git/catfile/cache.go habit):
 * spawning git costs milliseconds, a pipe round trip to a warm process tens of microseconds.
 * Bounded in count (the least recently used idle process of another repository is evicted when
 * full; callers queue when every process is busy), idle ones reaped after a TTL, a crashed or
 * half-read one dropped and replaced by a fresh spawn on the next request.
 */
export class CatfilePool {
  private readonly max: number;
  private readonly maxPerRepo: number;
  /** Live processes (idle and busy) per repository. */
  private readonly perRepo = new Map<string, number>();
  private readonly ttl: number;
  private readonly idle = new Map<string, CatfileProcess[]>();
  private readonly waiters: Array<() => void> = [];
  private live = 0;
  private closed = false;
  private readonly reaper: NodeJS.Timeout;
  private readonly metrics: { size: client.Gauge; hits: client.Counter; misses: client.Counter; evictions: client.Counter };

  constructor(opts: CatfilePoolOptions = {}) {
    this.max = opts.maxProcesses ?? 32;
    this.maxPerRepo = opts.maxPerRepository ?? 8;
    this.ttl = opts.idleTtlMs ?? 10_000;
    const registers = opts.registry ? [opts.registry] : [];
    this.metrics = {
      size: new client.Gauge({ name: 'githost_git_storage_catfile_processes', help: 'Live cat-file processes in the pool', registers }),
      hits: new client.Counter({ name: 'githost_git_storage_catfile_cache_hits_total', help: 'Requests served by a warm cat-file process', registers }),
      misses: new client.Counter({ name: 'githost_git_storage_catfile_cache_misses_total', help: 'Requests that had to spawn a cat-file process', registers }),
      evictions: new client.Counter({ name: 'githost_git_storage_catfile_evictions_total', help: 'cat-file processes reaped, evicted or dropped', registers }),
    };
    this.reaper = setInterval(() => this.reap(), Math.max(50, Math.floor(this.ttl / 2)));
    this.reaper.unref();
  }

  /** Live processes (idle and busy). */
  get size(): number {
    return this.live;
  }

  /** Idle processes kept for a repository. */
  idleCount(gitDir: string): number {
    return this.idle.get(gitDir)?.length ?? 0;
  }

  /**
   * A process for `gitDir`, exclusively the caller's until `release`. `beyondRepositoryCap` is for
   * long holds (a large blob streamed at the client's pace), which must not leave the other
   * readers of the repository waiting; those count against the overall cap only.
   */
  async acquire(gitDir: string, opts: { beyondRepositoryCap?: boolean } = {}): Promise<CatfileProcess> {
    for (;;) {
      if (this.closed) throw new Error('cat-file pool is closed');
      const list = this.idle.get(gitDir);
      while (list && list.length > 0) {
        const p = list.pop()!;
        if (list.length === 0) this.idle.delete(gitDir);
        if (p.alive) {
          this.metrics.hits.inc();
          return p;
        }
        this.drop(p);
      }
      const mine = this.perRepo.get(gitDir) ?? 0;
      if (mine < this.maxPerRepo || opts.beyondRepositoryCap) {
        if (this.live >= this.max) this.evictOldestIdle();
        if (this.live < this.max) {
          this.metrics.misses.inc();
          this.live++;
          this.perRepo.set(gitDir, mine + 1);
          this.metrics.size.set(this.live);
          return new CatfileProcess(gitDir);
        }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Gives a process back; `reusable` false (a reader gave up mid-object, an error) kills it. */
  release(p: CatfileProcess, reusable: boolean): void {
    if (!reusable || !p.alive || this.closed) {
      this.drop(p);
    } else {
      p.lastUsed = Date.now();
      const list = this.idle.get(p.gitDir) ?? [];
      list.push(p);
      this.idle.set(p.gitDir, list);
    }
    // Every waiter looks again: the one that can use this process may not be the first in line
    // (waiting for another repository, or for a slot under its own repository's cap).
    for (const w of this.waiters.splice(0)) w();
  }

  /** Runs `fn` with a process; the process goes back only when `fn` finished without throwing. */
  async with<T>(gitDir: string, fn: (p: CatfileProcess) => Promise<T>): Promise<T> {
    const p = await this.acquire(gitDir);
    try {
      const result = await fn(p);
      this.release(p, true);
      return result;
    } catch (err) {
      this.release(p, false);
      throw err;
    }
  }

  /** Kills the idle processes of one repository (it is being removed). */
  forget(gitDir: string): void {
    for (const p of this.idle.get(gitDir) ?? []) this.drop(p);
    this.idle.delete(gitDir);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.reaper);
    for (const list of this.idle.values()) for (const p of list) this.drop(p);
    this.idle.clear();
    for (const w of this.waiters.splice(0)) w();
  }

  private drop(p: CatfileProcess): void {
    p.kill();
    const mine = (this.perRepo.get(p.gitDir) ?? 1) - 1;
    if (mine > 0) this.perRepo.set(p.gitDir, mine);
    else this.perRepo.delete(p.gitDir);
    this.live--;
    this.metrics.size.set(this.live);
    this.metrics.evictions.inc();
  }

  private evictOldestIdle(): void {
    let oldest: CatfileProcess | undefined;
    for (const list of this.idle.values()) for (const p of list) if (!oldest || p.lastUsed < oldest.lastUsed) oldest = p;
    if (!oldest) return;
    const list = this.idle.get(oldest.gitDir)!;
    list.splice(list.indexOf(oldest), 1);
    if (list.length === 0) this.idle.delete(oldest.gitDir);
    this.drop(oldest);
  }

  private reap(): void {
    const cutoff = Date.now() - this.ttl;
    for (const [dir, list] of this.idle) {
      const keep = list.filter((p) => p.alive && p.lastUsed >= cutoff);
      for (const p of list) if (!keep.includes(p)) this.drop(p);
      if (keep.length === 0) this.idle.delete(dir);
      else this.idle.set(dir, keep);
    }
  }
}
