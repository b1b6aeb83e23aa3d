import { describe, expect, it } from '@jest/globals';
import v8 from 'node:v8';
import vm from 'node:vm';
import { compacting, createIdleCollection, exposedCollector } from './idle-collection.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createIdleCollection (docs/decisions/ssh-server.md#memory)', () => {
  it('when the last of two commands ends, then one collection follows after the delay, and none while one still runs', async () => {
    let collections = 0;
    const idle = createIdleCollection(() => collections++, 20);
    idle.started();
    idle.started();
    idle.ended();
    await sleep(60);
    expect(collections).toBe(0);
    idle.ended();
    await sleep(60);
    expect(collections).toBe(1);
    await sleep(40);
    expect(collections).toBe(1);
  });

  it('when a command starts before the delay is over, then the collection is called off until it ends', async () => {
    let collections = 0;
    const idle = createIdleCollection(() => collections++, 30);
    idle.started();
    idle.ended();
    await sleep(5);
    idle.started();
    await sleep(60);
    expect(collections).toBe(0);
    idle.ended();
    idle.stop();
    await sleep(60);
    expect(collections).toBe(0);
  });

  it('when the process was started without --expose-gc, then no collector is exposed; with a gc function, it is the one called', () => {
    const saved = (globalThis as { gc?: unknown }).gc;
    try {
      delete (globalThis as { gc?: unknown }).gc;
      expect(exposedCollector()).toBeUndefined();
      let calls = 0;
      (globalThis as { gc?: unknown }).gc = () => calls++;
      exposedCollector()!();
      expect(calls).toBe(1);
    } finally {
      (globalThis as { gc?: unknown }).gc = saved;
      if (saved === undefined) delete (globalThis as { gc?: unknown }).gc;
    }
  });

  it('when half the objects on old-generation pages died, then the compacting collection gives those pages back, which a plain full collection does not', () => {
    // V8's own gc function, as --expose-gc makes it (the ssh process's flag), in this process.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const unusedOldSpace = () => {
      const old = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!;
      return old.physical_space_size - old.space_used_size;
    };
    // About 30 MiB of small objects promoted to the old generation, then every other one dropped:
    // every page is half free and none is empty, which V8's own choice does not compact whole.
    let objects: Array<{ n: number; s: string; pair: number[] }> = [];
    for (let n = 0; n < 200_000; n++) objects.push({ n, s: `object ${n}`, pair: [n, n + 1] });
    gc();
    gc();
    objects = objects.filter((_, i) => i % 2 === 0);
    gc();
    const afterPlain = unusedOldSpace();
    compacting(gc);
    const afterCompacting = unusedOldSpace();
    expect(objects).toHaveLength(100_000);
    // Measured: about 16 MiB given back; a plain full collection moves at most 4 MiB (V8's limit
    // outside the memory-reducing mode) and gave back 5.
    expect(afterPlain - afterCompacting).toBeGreaterThan(10 * 1024 * 1024);
  });
});
