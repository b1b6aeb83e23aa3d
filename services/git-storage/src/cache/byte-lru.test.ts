import { describe, expect, it } from '@jest/globals';
import { ByteLru } from './byte-lru.js';

const lru = (maxBytes: number, maxEntryBytes?: number) => new ByteLru<string>({ maxBytes, maxEntryBytes, sizeOf: (v) => v.length });

describe('ByteLru', () => {
  it('when the byte budget is exceeded, then the least recently used entries go first', () => {
    const c = lru(10, 10);
    c.set('a', 'aaaa');
    c.set('b', 'bbbb');
    expect(c.get('a')).toBe('aaaa');
    c.set('c', 'cccc');
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('aaaa');
    expect(c.get('c')).toBe('cccc');
    expect(c.bytes).toBe(8);
  });

  it('when a value is larger than the per-entry limit, then it is served but not kept', async () => {
    const c = lru(100, 5);
    expect(await c.fetch('big', () => Promise.resolve('x'.repeat(6)))).toBe('xxxxxx');
    expect(c.size).toBe(0);
    expect(c.bytes).toBe(0);
  });

  it('when the same key is fetched concurrently, then one load serves every caller', async () => {
    const c = lru(100);
    let loads = 0;
    let release!: (v: string) => void;
    const load = () => {
      loads++;
      return new Promise<string>((resolve) => (release = resolve));
    };
    const both = Promise.all([c.fetch('k', load), c.fetch('k', load)]);
    release('v');
    expect(await both).toEqual(['v', 'v']);
    expect(loads).toBe(1);
    expect(await c.fetch('k', load)).toBe('v');
    expect(loads).toBe(1);
    expect({ hits: c.hits, misses: c.misses }).toEqual({ hits: 2, misses: 1 });
  });

  it('when a load fails, then nothing is kept and the next fetch loads again', async () => {
    const c = lru(100);
    await expect(c.fetch('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await c.fetch('k', () => Promise.resolve('ok'))).toBe('ok');
    expect(c.get('k')).toBe('ok');
  });

  it('when a prefix is removed while a load of it is under way, then that load does not put its value back', async () => {
    const c = lru(100);
    c.set('repo-a\0x', 'old');
    c.set('repo-b\0x', 'keep');
    let release!: (v: string) => void;
    const pending = c.fetch('repo-a\0y', () => new Promise<string>((resolve) => (release = resolve)));
    c.deletePrefix('repo-a\0');
    release('stale');
    expect(await pending).toBe('stale');
    expect(c.get('repo-a\0x')).toBeUndefined();
    expect(c.get('repo-a\0y')).toBeUndefined();
    expect(c.get('repo-b\0x')).toBe('keep');
    expect(await c.fetch('repo-a\0y', () => Promise.resolve('fresh'))).toBe('fresh');
  });
});
