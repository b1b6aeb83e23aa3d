import { LRUCache } from 'lru-cache';

export interface ObjectCacheOptions {
  /** Told about every lookup, for hit-rate metrics. */
  onLookup?: (hit: boolean) => void;
}

/**
 * Serialised JSON of immutable things (a tree listing, a blob, a commit: each keyed by an
 * object id), bounded in bytes. Caching the serialised text rather than objects skips both the
 * git read and the JSON.stringify, which for large trees costs more than the read itself.
 */
export class ObjectCache {
  private readonly lru: LRUCache<string, string | Buffer> | undefined;
  private readonly inFlight = new Map<string, Promise<string | Buffer | undefined>>();
  /** Keys whose value a streamed answer is collecting (claimFill). */
  private readonly filling = new Set<string>();
  /** The largest value kept; 0 when nothing is. */
  readonly maxEntryBytes: number;

  constructor(
    maxBytes: number,
    private readonly options: ObjectCacheOptions = {},
  ) {
    // V8 keeps JSON of ASCII text one byte per character, so length approximates memory.
    // One entry may take at most a quarter of the budget, so a few huge trees cannot flush it.
    this.maxEntryBytes = maxBytes > 0 ? Math.max(1, Math.floor(maxBytes / 4)) : 0;
    this.lru = maxBytes > 0 ? new LRUCache<string, string | Buffer>({ maxSize: maxBytes, maxEntrySize: this.maxEntryBytes, sizeCalculation: (v, k) => v.length + k.length }) : undefined;
  }

  get(key: string): string | undefined {
    return this.lookup(key) as string | undefined;
  }

  private lookup(key: string): string | Buffer | undefined {
    const hit = this.lru?.get(key);
    this.options.onLookup?.(hit !== undefined);
    return hit;
  }

  /** Whether `key` is kept, without counting as a lookup or refreshing it. */
  has(key: string): boolean {
    return this.lru?.has(key) ?? false;
  }

  set(key: string, json: string): void {
    this.lru?.set(key, json);
  }

  /** Concurrent misses on one key share a single load, so a burst on a cold object reads it once. */
  getOrLoad(key: string, load: () => Promise<string>): Promise<string> {
    return this.shared(key, load) as Promise<string>;
  }

  /**
   * The same, kept as UTF-8 bytes: an answer made of them is written to the socket as it is,
   * with no per-request copy into a new string (a 1 MiB blob's JSON is 1.4 MB), so the heap does
   * not grow with the bodies in flight. Keys of the two kinds must not overlap.
   */
  getOrLoadBytes(key: string, load: () => Promise<string>): Promise<Buffer> {
    return this.shared(key, () => load().then((json) => Buffer.from(json))) as Promise<Buffer>;
  }

  /**
   * Bytes kept as they are (a raw blob's content), or undefined when `load` found the value too
   * large to keep: then every caller, those that joined the load included, reads it themselves.
   */
  getOrLoadRaw(key: string, load: () => Promise<Buffer | undefined>): Promise<Buffer | undefined> {
    return this.shared(key, load) as Promise<Buffer | undefined>;
  }

  private shared(key: string, load: () => Promise<string | Buffer | undefined>): Promise<string | Buffer | undefined> {
    const hit = this.lookup(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const loading = load()
      .then((value) => {
        if (value !== undefined) this.lru?.set(key, value);
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, loading);
    return loading;
  }

  /**
   * For a value collected while it is sent (a streamed answer,
   * docs/decisions/big-pages.md#the-whole-tree-streamed): one caller at a time may collect `key`,
   * so concurrent cold reads of one big answer hold one copy between them, not one each; and at
   * most as many keys are collected at once as entries of the largest size fit the budget, so what
   * is collected never exceeds the budget itself. False when nothing is kept, the key is kept
   * already, another caller collects it, or that many do. `fill` ends the claim.
   */
  claimFill(key: string): boolean {
    if (!this.lru || this.maxEntryBytes === 0 || this.filling.has(key) || this.lru.has(key)) return false;
    if (this.filling.size >= Math.floor(this.lru.maxSize / this.maxEntryBytes)) return false;
    this.filling.add(key);
    return true;
  }

  /** Ends claimFill's claim, keeping `value` when there is one (not when the answer was cut short or grew too big). */
  fill(key: string, value: Buffer | undefined): void {
    this.filling.delete(key);
    if (value !== undefined) this.lru?.set(key, value);
  }

  get sizeBytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }
}
