import { describe, expect, it } from '@jest/globals';
import { LoopBudget } from './event-loop.js';

/** Records, per item, whether a callback queued on the event loop before the loop started had run. */
function probe(): { ran: () => boolean } {
  let ran = false;
  setImmediate(() => (ran = true));
  return { ran: () => ran };
}

/** A loop over items written as the callers write theirs: work, then `pauseIfSpent`. */
async function visit(items: readonly number[], budget: LoopBudget, other: { ran: () => boolean }): Promise<boolean[]> {
  const seen: boolean[] = [];
  for (const _ of items) {
    seen.push(other.ran());
    await budget.pauseIfSpent();
  }
  return seen;
}

describe('LoopBudget in a loop', () => {
  it('when the budget is spent after every item, then other callbacks run between the items', async () => {
    expect(await visit([1, 2, 3], new LoopBudget(0), probe())).toEqual([false, true, true]);
  });

  it('when the budget is never spent, then the loop runs to its end without giving the event loop back', async () => {
    expect(await visit([1, 2, 3], new LoopBudget(Number.POSITIVE_INFINITY), probe())).toEqual([false, false, false]);
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
