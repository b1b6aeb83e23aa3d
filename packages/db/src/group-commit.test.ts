import { describe, expect, it } from '@jest/globals';
import { GroupCommit } from './group-commit.js';

/** A writer that records the batches it was given and refuses any batch holding a poison item. */
function writer(opts: { poison?: number; hold?: Promise<void> } = {}) {
  const batches: number[][] = [];
  const runBatch = async (items: number[]): Promise<number[]> => {
    batches.push(items);
    await opts.hold;
    if (items.includes(opts.poison ?? NaN)) throw new Error(`poison ${opts.poison}`);
    return items.map((n) => n * 10);
  };
  return { batches, runBatch };
}

describe('GroupCommit', () => {
  it('when items are submitted together, then they are written in one batch and each caller gets its own result', async () => {
    const w = writer();
    const group = new GroupCommit({ runBatch: w.runBatch, maxBatch: 100 });
    expect(await Promise.all([1, 2, 3].map((n) => group.submit(n)))).toEqual([10, 20, 30]);
    expect(w.batches).toEqual([[1, 2, 3]]);
  });

  it('when items arrive while a batch is being run, then they wait and go together in the next one, at most maxBatch at a time', async () => {
    let release!: () => void;
    const w = writer({ hold: new Promise<void>((r) => (release = r)) });
    const group = new GroupCommit({ runBatch: w.runBatch, maxBatch: 2 });
    const first = group.submit(1);
    await new Promise((r) => setImmediate(r));
    expect(w.batches).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => group.submit(n));
    release();
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
    expect(w.batches).toEqual([[1], [2, 3], [4]]);
    await group.idle();
  });

  it('when one item of a batch cannot be written, then only its caller fails and the others are written one by one', async () => {
    const w = writer({ poison: 2 });
    const failed: Array<[unknown, number]> = [];
    const group = new GroupCommit({ runBatch: w.runBatch, maxBatch: 100, onBatchFailed: (err, size) => failed.push([err, size]) });
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 'poison 2', 30]);
    expect(w.batches).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(failed).toEqual([[expect.any(Error), 3]]);
    // the committer keeps working after a failure
    expect(await group.submit(4)).toBe(40);
  });
});
