import { describe, expect, it } from '@jest/globals';
import { COMPARE_BUDGET_DEFAULTS, ComparisonTooBigError, withinBudget } from './compare.js';
import { GitCancelledError, GitError, GitOutputTooBigError, GitTimeoutError } from './errors.js';

const budget = { maxWalkCommits: 1000, timeoutMs: 5000 };
const failing = (err: Error) => () => Promise.reject(err);

describe('withinBudget', () => {
  it('when a walk runs past the deadline, then the comparison is too big, in words naming the budget', async () => {
    await expect(withinBudget(budget, failing(new GitTimeoutError('git rev-list timed out')))).rejects.toEqual(
      new ComparisonTooBigError('Comparison too big: it could not be walked within 5 s; compare commits closer together, or run git log on a clone'),
    );
  });

  it('when a walk lists more commits than the budget, then the comparison is too big', async () => {
    await expect(withinBudget(budget, failing(new GitOutputTooBigError('git rev-list output exceeded')))).rejects.toEqual(
      new ComparisonTooBigError('Comparison too big: more than 1,000 commits on one side; compare commits closer together, or run git log on a clone'),
    );
  });

  it('when the caller went away or git failed otherwise, then that failure stays what it is', async () => {
    const cancelled = new GitCancelledError('git rev-list cancelled');
    const other = new GitError('git rev-list failed');
    await expect(withinBudget(budget, failing(cancelled))).rejects.toBe(cancelled);
    await expect(withinBudget(budget, failing(other))).rejects.toBe(other);
  });

  it('when the walk finishes, then its answer passes through; the default budget is below browse deadline of 30 s', async () => {
    expect(await withinBudget(budget, () => Promise.resolve(7))).toBe(7);
    expect(COMPARE_BUDGET_DEFAULTS.timeoutMs).toBeLessThan(30_000);
  });
});
