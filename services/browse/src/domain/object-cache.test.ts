import { describe, expect, it } from '@jest/globals';
import { ObjectCache } from './object-cache.js';

describe('ObjectCache', () => {
  it('when a key is loaded twice, then the loader runs once', async () => {
    const cache = new ObjectCache(1 << 20);
    let loads = 0;
    const load = () => Promise.resolve(`v${++loads}`);
    expect([await cache.getOrLoad('k', load), await cache.getOrLoad('k', load), loads]).toEqual(['v1', 'v1', 1]);
  });

  it('when concurrent misses hit one key, then they share a single load', async () => {
    const cache = new ObjectCache(1 << 20);
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load)])).toEqual(['v1', 'v1']);
    expect(loads).toBe(1);
  });

  it('when entries exceed the byte budget, then the total stays within it', () => {
    const cache = new ObjectCache(4096);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, 'x'.repeat(200));
    expect(cache.sizeBytes).toBeLessThanOrEqual(4096);
    expect(cache.get('k99')).toBe('x'.repeat(200));
  });

  it('when a load fails, then the failure is not cached', async () => {
    const cache = new ObjectCache(1 << 20);
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.getOrLoad('k', () => Promise.resolve('ok'))).toBe('ok');
  });

  it('when a value is loaded as bytes, then concurrent misses share one load and every hit is the same UTF-8 buffer', async () => {
    const cache = new ObjectCache(1 << 20);
    let loads = 0;
    const load = async () => `{"é":${++loads}}`;
    const [a, b] = await Promise.all([cache.getOrLoadBytes('k', load), cache.getOrLoadBytes('k', load)]);
    const c = await cache.getOrLoadBytes('k', load);
    expect([a.toString('utf8'), loads]).toEqual(['{"é":1}', 1]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(cache.sizeBytes).toBe(a.length + 1);
  });

  it('when raw bytes are loaded, then the same buffer is kept and concurrent misses share one load', async () => {
    const cache = new ObjectCache(1 << 20);
    let loads = 0;
    const bytes = Buffer.from([0, 1, 2]);
    const load = async () => {
      loads++;
      return bytes;
    };
    const [a, b] = await Promise.all([cache.getOrLoadRaw('raw', load), cache.getOrLoadRaw('raw', load)]);
    expect([a, b, await cache.getOrLoadRaw('raw', load), loads]).toEqual([bytes, bytes, bytes, 1]);
  });

  it('when a raw load finds the value too large to keep, then nothing is kept and the next caller loads again', async () => {
    const cache = new ObjectCache(1 << 20);
    let loads = 0;
    const load = async () => {
      loads++;
      return undefined;
    };
    expect([await cache.getOrLoadRaw('raw', load), await cache.getOrLoadRaw('raw', load), loads, cache.sizeBytes]).toEqual([undefined, undefined, 2, 0]);
  });

  it('when the budget is set, then the per-entry limit is a quarter of it, and 0 keeps nothing', () => {
    expect([new ObjectCache(4096).maxEntryBytes, new ObjectCache(0).maxEntryBytes]).toEqual([1024, 0]);
  });
});
