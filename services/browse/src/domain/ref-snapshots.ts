import { compareNames, nameIndex } from '@githost/git-records';
import { LRUCache } from 'lru-cache';
import type { ReadContext, RefsMoved, RefVersions } from './ports.js';
import { listOfSorted, refListOf, type RefList } from './ref-lists.js';
import type { RawRef } from './refs.js';

/** What a snapshot holds: every branch and tag, so any ref-addressed read can be split from it. */
export const SNAPSHOT_PREFIXES: readonly string[] = ['refs/heads/', 'refs/tags/'];

type ListRefs = (ctx: ReadContext, prefixes: readonly string[]) => Promise<RawRef[]>;

interface Snapshot {
  version: string;
  /** Sorted by name as git sorts them (compareNames), for the prefix searches and the whole lists. */
  refs: RawRef[];
  /** The whole lists asked for so far, by prefix: sliced and digested once per version (a reference a ref, inside the size estimate's 120 bytes a ref). */
  lists?: Map<string, RefList>;
}

export interface RefSnapshotsOptions {
  /** Approximate bytes all snapshots may hold. */
  maxBytes?: number;
  /** Per read: answered from a snapshot, loaded one, or went to storage with no live watch. */
  onLookup?: (result: RefLookup) => void;
}

export type RefLookup = 'hit' | 'miss' | 'unwatched';

/**
 * Each repository's branches and tags, kept with the watch version read BEFORE the ListRefs that
 * produced them started, and used only while the version is still that one: git-storage holds
 * every ref change until our watch moved the version, so a snapshot never answers for refs older
 * than a write its client saw complete. Without a live watch (undefined version) every read goes
 * to git-storage through `fresh` (shared reads that never start before the request arrived).
 */
export class RefSnapshots {
  private readonly snapshots: LRUCache<string, Snapshot>;
  /** Per repository, the snapshot being loaded and the version it is for: every read that misses
   *  while it loads waits for it instead of loading, copying and sorting the refs once more. */
  private readonly loading = new Map<string, { version: string; snap: Promise<Snapshot> }>();
  /** The whole lists made from one unwatched answer (FreshRefs hands one array to every caller of a call). */
  private readonly unwatchedLists = new WeakMap<readonly RawRef[], RefList>();

  constructor(
    private readonly versions: RefVersions,
    private readonly fresh: ListRefs,
    private readonly opts: RefSnapshotsOptions = {},
  ) {
    this.snapshots = new LRUCache({ maxSize: opts.maxBytes ?? 32 * 1024 * 1024, sizeCalculation: (s) => 64 + s.refs.reduce((n, r) => n + r.name.length + 120, 0) });
    versions.onChange?.((shard, repositoryId, moved) => {
      if (repositoryId !== undefined && moved) this.moved(`${shard}\0${repositoryId}`, moved);
    });
  }

  /**
   * A snapshot of the refs as of `moved.before` is brought to `moved.after` in place: after a push
   * or a merge at 110,000 refs the next read then costs what it costs at 1,000, instead of reading
   * every ref again (docs/decisions/many-refs-push.md#the-refs-cache). Any other snapshot of the
   * repository is left to its version check.
   */
  private moved(key: string, moved: RefsMoved): void {
    const snap = this.snapshots.peek(key);
    if (!snap || snap.version !== moved.before) return;
    const changed = moved.refs.filter((r) => SNAPSHOT_PREFIXES.some((p) => r.name.startsWith(p)));
    const refs = changed.length === 0 ? snap.refs : snap.refs.slice();
    for (const r of changed) {
      const at = nameIndex(refs, r.name);
      const present = refs[at]?.name === r.name;
      if (r.target === '') {
        if (present) refs.splice(at, 1);
      } else if (present) refs[at] = { name: r.name, target: r.target, peeled: r.peeled };
      else refs.splice(at, 0, { name: r.name, target: r.target, peeled: r.peeled });
    }
    // Its whole lists are slices of it in the same order: cut again when next asked, not sorted.
    this.snapshots.set(key, { version: moved.after, refs, ...(changed.length === 0 && snap.lists && { lists: snap.lists }) });
  }

  async list(ctx: ReadContext, prefixes: readonly string[]): Promise<RawRef[]> {
    const version = this.versions.version(ctx.shard, ctx.repoId);
    if (version === undefined || !prefixes.every((p) => SNAPSHOT_PREFIXES.some((s) => p.startsWith(s)))) {
      this.opts.onLookup?.('unwatched');
      return this.fresh(ctx, prefixes);
    }
    return underPrefixes((await this.snapshot(ctx, version)).refs, prefixes);
  }

  /**
   * Every ref under `prefix` (one of SNAPSHOT_PREFIXES) in the whole list's order with its
   * digest, both kept with the snapshot: a warm whole list neither sorts nor hashes again.
   */
  async refList(ctx: ReadContext, prefix: string): Promise<RefList> {
    const version = this.versions.version(ctx.shard, ctx.repoId);
    if (version === undefined) {
      this.opts.onLookup?.('unwatched');
      const refs = await this.fresh(ctx, [prefix]);
      let list = this.unwatchedLists.get(refs);
      if (!list) {
        list = refListOf(refs);
        this.unwatchedLists.set(refs, list);
      }
      return list;
    }
    const snap = await this.snapshot(ctx, version);
    snap.lists ??= new Map();
    let list = snap.lists.get(prefix);
    if (!list) {
      list = listOfSorted(underPrefixes(snap.refs, [prefix]));
      snap.lists.set(prefix, list);
    }
    return list;
  }

  /**
   * The snapshot of `version`: the kept one, the one being loaded for the same version, or a new
   * load. Reads that miss together share one load (docs/decisions/ref-pages.md#cold-reads-together): at
   * 110,000 refs each load copies, sorts and sizes the whole list (tens of milliseconds, all of
   * it synchronous), and the requests that queued behind a cold ListRefs each did so in turn, once
   * it answered: 60-100 of them held the event loop 5-18 s. Joining a load started before the
   * request is as good as reading a kept snapshot of the same version: a ref change completes
   * only after the watch moved the version, so none completed since the load read it.
   */
  private async snapshot(ctx: ReadContext, version: string): Promise<Snapshot> {
    const key = `${ctx.shard}\0${ctx.repoId}`;
    const snap = this.snapshots.get(key);
    if (snap?.version === version) {
      this.opts.onLookup?.('hit');
      return snap;
    }
    const loading = this.loading.get(key);
    if (loading?.version === version) {
      this.opts.onLookup?.('hit');
      return loading.snap;
    }
    this.opts.onLookup?.('miss');
    const load = this.load(ctx, key, version);
    const entry = { version, snap: load };
    this.loading.set(key, entry);
    const done = () => {
      if (this.loading.get(key) === entry) this.loading.delete(key);
    };
    load.then(done, done);
    return load;
  }

  private async load(ctx: ReadContext, key: string, version: string): Promise<Snapshot> {
    const refs = [...(await this.fresh(ctx, SNAPSHOT_PREFIXES))].sort(byName);
    const snap = { version, refs };
    // Refs changed while the call ran: the answer is still good for the requests that asked for
    // this version (each arrived after the version was read) but must not be kept for later ones.
    if (this.versions.version(ctx.shard, ctx.repoId) === version) this.snapshots.set(key, snap);
    return snap;
  }
}

function byName(a: RawRef, b: RawRef): number {
  return compareNames(a.name, b.name);
}

/** The refs whose names start with one of `prefixes` (each a binary search, then a scan), in `sorted`'s order. */
function underPrefixes(sorted: readonly RawRef[], prefixes: readonly string[]): RawRef[] {
  const rangeOf = (p: string): [number, number] => {
    const lo = nameIndex(sorted, p);
    let hi = lo;
    while (hi < sorted.length && sorted[hi]!.name.startsWith(p)) hi++;
    return [lo, hi];
  };
  // One prefix (a whole list, a name's refs): a slice, no copy of references one by one.
  if (prefixes.length === 1) return sorted.slice(...rangeOf(prefixes[0]!));
  const out: RawRef[] = [];
  const seen = new Set<RawRef>();
  for (const p of prefixes) {
    const [lo, hi] = rangeOf(p);
    for (let i = lo; i < hi; i++) {
      const r = sorted[i]!;
      if (!seen.has(r)) {
        seen.add(r);
        out.push(r);
      }
    }
  }
  return out.sort(byName);
}
