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
  private readonly lru: LRUCache<string, string> | undefined;
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    maxBytes: number,
    private readonly options: ObjectCacheOptions = {},
  ) {
    // V8 keeps JSON of ASCII text one byte per character, so length approximates memory.
    // One entry may take at most a quarter of the budget, so a few huge trees cannot flush it.
    this.lru =
      maxBytes > 0
        ? new LRUCache<string, string>({ maxSize: maxBytes, maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)), sizeCalculation: (v, k) => v.length + k.length })
        : undefined;
  }

  get(key: string): string | undefined {
    const hit = this.lru?.get(key);
    this.options.onLookup?.(hit !== undefined);
    return hit;
  }

  set(key: string, json: string): void {
    this.lru?.set(key, json);
  }

  /** Concurrent misses on one key share a single load, so a burst on a cold object reads it once. */
  getOrLoad(key: string, load: () => Promise<string>): Promise<string> {
    const hit = this.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const loading = load()
      .then((json) => {
        this.lru?.set(key, json);
        return json;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, loading);
    return loading;
  }

  get sizeBytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }
}
