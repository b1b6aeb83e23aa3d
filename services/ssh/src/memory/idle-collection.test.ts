import { describe, expect, it } from '@jest/globals';
import { createIdleCollection, exposedCollector } from './idle-collection.js';

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
});
