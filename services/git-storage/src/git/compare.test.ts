import { describe, expect, it } from '@jest/globals';
import { COMPARE_BUDGET_DEFAULTS, ComparisonTooBigError, readHeadSide, withinBudget } from './compare.js';
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

describe('readHeadSide', () => {
  const oid = (c: string) => c.repeat(40);
  const lines = (own: string[], boundary: string[]) => Buffer.from([...own.map((o) => `${o}\n`), ...boundary.map((o) => `-${o}\n`)].join(''), 'latin1');

  it('when head has own commits and a boundary, then the count, the oldest n reversed and the boundary in git order', () => {
    const out = lines([oid('d'), oid('c'), oid('b'), oid('a')], [oid('1'), oid('2')]);
    expect(readHeadSide(out, 2)).toEqual({ count: 4, oldest: [oid('a'), oid('b')], boundary: [oid('1'), oid('2')] });
    expect(readHeadSide(out, 10).oldest).toEqual([oid('a'), oid('b'), oid('c'), oid('d')]);
  });

  it('when there is no boundary (unrelated histories) or no output (head behind), then they read as such', () => {
    expect(readHeadSide(lines([oid('b'), oid('a')], []), 5)).toEqual({ count: 2, oldest: [oid('a'), oid('b')], boundary: [] });
    expect(readHeadSide(Buffer.alloc(0), 5)).toEqual({ count: 0, oldest: [], boundary: [] });
  });
});
