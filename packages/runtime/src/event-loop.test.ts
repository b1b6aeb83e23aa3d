import { describe, expect, it } from '@jest/globals';
import { forEachYielding, LoopBudget, mapYielding } from './event-loop.js';

/** Records, per item, whether a callback queued on the event loop before the loop started had run. */
function probe(): { ran: () => boolean } {
  let ran = false;
  setImmediate(() => (ran = true));
  return { ran: () => ran };
}

describe('mapYielding', () => {
  it('when the budget is spent after every item, then other callbacks run between the items and the results keep their order', async () => {
    const other = probe();
    const seen: boolean[] = [];
    const out = await mapYielding([1, 2, 3], (n) => {
      seen.push(other.ran());
      return n * 10;
    }, new LoopBudget(0));
    expect(out).toEqual([10, 20, 30]);
    expect(seen).toEqual([false, true, true]);
  });

  it('when the budget is never spent, then the loop runs to its end without giving the event loop back', async () => {
    const other = probe();
    const seen: boolean[] = [];
    await mapYielding([1, 2, 3], () => seen.push(other.ran()), new LoopBudget(Number.POSITIVE_INFINITY));
    expect(seen).toEqual([false, false, false]);
  });

  it('when there are no items, then the answer is empty', async () => {
    await expect(mapYielding([], () => 1)).resolves.toEqual([]);
  });
});

describe('forEachYielding', () => {
  it('when the budget is spent, then every item is visited once, in order, with other callbacks run in between', async () => {
    const other = probe();
    const visited: Array<[string, boolean]> = [];
    await forEachYielding(new Set(['a', 'b']), (s) => visited.push([s, other.ran()]), new LoopBudget(0));
    expect(visited).toEqual([['a', false], ['b', true]]);
  });
});

describe('LoopBudget.pauseIfSpent', () => {
  it('when the budget is not spent, then it answers undefined (no promise to await)', () => {
    expect(new LoopBudget(Number.POSITIVE_INFINITY).pauseIfSpent()).toBeUndefined();
  });

  it('when the budget is spent, then it answers a pause that starts a new budget', async () => {
    const budget = new LoopBudget(0);
    const pause = budget.pauseIfSpent();
    expect(pause).toBeInstanceOf(Promise);
    await pause;
  });
});
