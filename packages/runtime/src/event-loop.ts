/**
 * Fair turns on the one event loop (docs/decisions/many-refs-push.md#yielding). In the embedded
 * mode every service shares one loop, so a loop over thousands of items (a push of 10,000 refs,
 * its 10,000 events) that runs to its end holds every other request for as long: it gives the
 * loop back whenever it has held it for a budget of a few milliseconds, through `setImmediate`,
 * which lets pending I/O (requests, answers, timers) run first. A budget in time rather than a
 * count of items adapts to how costly each item is; a short loop never yields at all.
 */

/** How long a loop may hold the event loop before it gives it back. */
export const DEFAULT_LOOP_BUDGET_MS = 10;

/** Resolves after every I/O callback already waiting has run (one turn of the event loop). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The time one loop has held the event loop since it last gave it back. */
export class LoopBudget {
  private since = performance.now();

  constructor(private readonly budgetMs = DEFAULT_LOOP_BUDGET_MS) {}

  /** True once the budget is spent: the caller should `await pause()` before going on. */
  spent(): boolean {
    return performance.now() - this.since >= this.budgetMs;
  }

  /** Gives the event loop back, then starts a new budget. */
  async pause(): Promise<void> {
    await yieldToEventLoop();
    this.since = performance.now();
  }

  /** `pause()` when the budget is spent; otherwise nothing (no promise, no microtask). */
  pauseIfSpent(): Promise<void> | undefined {
    return this.spent() ? this.pause() : undefined;
  }
}
