/**
 * A least-recently-used map bounded by a byte budget, for answers that never change once computed
 * (tree listings by tree id, log pages by commit id). Loads of the same key in flight at the same
 * time are shared, so fifty concurrent readers of a cold 100,000-entry tree cost one listing.
 * (Small on purpose: a Map keeps insertion order, which is all an LRU needs.)
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private readonly loading = new Map<string, Promise<V>>();
  private used = 0;
  // Bumped by every removal, so a load that started before it does not put back what it removed.
  private epoch = 0;
  hits = 0;
  misses = 0;

  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly sizeOf: (value: V) => number;
  private readonly onLookup: (hit: boolean) => void;

  constructor(opts: {
    maxBytes: number;
    sizeOf: (value: V) => number;
    /** Larger values are served but not kept (one would push out everything else); default a quarter. */
    maxEntryBytes?: number;
    /** Told about every fetch (metrics). */
    onLookup?: (hit: boolean) => void;
  }) {
    this.maxBytes = opts.maxBytes;
    this.maxEntryBytes = opts.maxEntryBytes ?? Math.floor(opts.maxBytes / 4);
    this.sizeOf = opts.sizeOf;
    this.onLookup = opts.onLookup ?? (() => undefined);
  }

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: V): void {
    const bytes = this.sizeOf(value);
    this.delete(key);
    if (bytes > this.maxEntryBytes || bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.used += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= entry.bytes;
    }
  }

  /** The cached value, the load already under way, or a new load whose result is kept. */
  fetch(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.onLookup(true);
      return Promise.resolve(hit);
    }
    const pending = this.loading.get(key);
    if (pending) {
      this.hits++;
      this.onLookup(true);
      return pending;
    }
    this.misses++;
    this.onLookup(false);
    const epoch = this.epoch;
    const done = () => {
      if (this.loading.get(key) === p) this.loading.delete(key);
    };
    const p: Promise<V> = load().then(
      (value) => {
        done();
        if (epoch === this.epoch) this.set(key, value);
        return value;
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
    this.loading.set(key, p);
    return p;
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.used -= old.bytes;
  }

  /** Removes every key that starts with `prefix` (one repository's entries). */
  deletePrefix(prefix: string): void {
    this.epoch++;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.delete(key);
    for (const key of [...this.loading.keys()]) if (key.startsWith(prefix)) this.loading.delete(key);
  }
}
