import client from 'prom-client';
import { ByteLru } from './byte-lru.js';
import { MergeTreesAhead } from '../git/merge.js';

export interface TreeListing {
  treeOid: string;
  /** `git ls-tree --long -z` records. */
  entries: Buffer;
  count: number;
}

export interface ReadCacheOptions {
  /** Budget for finished tree listings (default 32 MiB; a 100,000-entry listing is about 7 MB). */
  treeBytes?: number;
  /** Budget for raw objects of large directories, looked up by name on every file read in them (default 16 MiB). */
  largeTreeBytes?: number;
  /** Budget for log pages (commit ids rev-list gave for a start commit, limit and offset; default 2 MiB). */
  logBytes?: number;
  /** Budget for ancestry answers (is A an ancestor of B; default 256 KiB, about 1,500 answers). */
  ancestryBytes?: number;
  registry?: client.Registry;
}

/**
 * Answers that cannot change, kept in memory: a tree id always lists the same entries and blob
 * sizes (and a large directory's raw object is the same bytes), and the log below a commit id is
 * fixed by that commit (replace refs and grafts are off, see gitEnv), and so is whether one commit
 * is an ancestor of another (a merge asks it, then its UpdateRef asks it again for the same pair). Keys start with the repository's directory, so a removed repository's entries go
 * with it (`forget`) and one repository never answers from another's objects.
 *
 * The budgets are small on purpose: every git this process starts is forked from it, and fork
 * costs grow with the parent's memory (on the 2-core machine spawning `true` took 2 ms from a
 * 45 MB process, 9 ms at 150 MB, 16 ms at 250 MB), so a cache that grows the process slows every
 * rev-list, merge and upload-pack.
 */
export class ReadCaches {
  readonly trees: ByteLru<TreeListing>;
  readonly logs: ByteLru<string[]>;
  readonly largeTrees: ByteLru<Buffer>;
  readonly ancestry: ByteLru<boolean>;
  readonly mergesAhead = new MergeTreesAhead();

  constructor(opts: ReadCacheOptions = {}) {
    const registers = opts.registry ? [opts.registry] : [];
    const lookups = new client.Counter({
      name: 'githost_git_storage_read_cache_lookups_total',
      help: 'Tree listing, large tree, log page and ancestry cache lookups by cache and result',
      labelNames: ['cache', 'result'],
      registers,
    });
    const count = (cache: string) => (hit: boolean) => lookups.inc({ cache, result: hit ? 'hit' : 'miss' });
    this.trees = new ByteLru<TreeListing>({ maxBytes: opts.treeBytes ?? 32 * 1024 * 1024, sizeOf: (t) => t.entries.length + 128, onLookup: count('tree') });
    this.logs = new ByteLru<string[]>({ maxBytes: opts.logBytes ?? 2 * 1024 * 1024, sizeOf: (oids) => oids.length * 48 + 128, onLookup: count('log') });
    this.largeTrees = new ByteLru<Buffer>({ maxBytes: opts.largeTreeBytes ?? 16 * 1024 * 1024, sizeOf: (raw) => raw.length + 128, onLookup: count('large_tree') });
    this.ancestry = new ByteLru<boolean>({ maxBytes: opts.ancestryBytes ?? 256 * 1024, sizeOf: () => 176, onLookup: count('ancestry') });
    const trees = this.trees;
    const logs = this.logs;
    const largeTrees = this.largeTrees;
    const ancestry = this.ancestry;
    new client.Gauge({
      name: 'githost_git_storage_read_cache_bytes',
      help: 'Bytes held by the tree listing, large tree, log page and ancestry caches',
      labelNames: ['cache'],
      registers,
      collect() {
        this.set({ cache: 'tree' }, trees.bytes);
        this.set({ cache: 'log' }, logs.bytes);
        this.set({ cache: 'large_tree' }, largeTrees.bytes);
        this.set({ cache: 'ancestry' }, ancestry.bytes);
      },
    });
  }

  static key(gitDir: string, ...parts: Array<string | number>): string {
    return `${gitDir}\0${parts.join('\0')}`;
  }

  forget(gitDir: string): void {
    this.trees.deletePrefix(`${gitDir}\0`);
    this.logs.deletePrefix(`${gitDir}\0`);
    this.largeTrees.deletePrefix(`${gitDir}\0`);
    this.ancestry.deletePrefix(`${gitDir}\0`);
    this.mergesAhead.forget(gitDir);
  }
}
