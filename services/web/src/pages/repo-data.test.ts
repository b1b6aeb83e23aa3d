import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { countsOf, type Settled } from './repo-data.js';

const ok = <T>(value: T): Settled<T> => ({ ok: true, value });
const failed: Settled<never> = { ok: false, error: new AppError('unavailable', 'down') };
const branches = (n: number) => n;
const tags = (n: number) => n;

describe("the tabs' counts", () => {
  it('when every list was read, then each tab counts its own', () => {
    expect(countsOf(ok(branches(2)), ok(tags(1)), ok([{}, {}, {}]))).toEqual({ branches: 2, tags: 1, mergeRequests: '3' });
  });

  it('when the open list is full, then it reads 50+, since the list answers at most 50', () => {
    expect(countsOf(ok(branches(1)), ok(tags(0)), ok(Array.from({ length: 50 }, () => ({}))))?.mergeRequests).toBe('50+');
    expect(countsOf(ok(branches(1)), ok(tags(0)), ok(Array.from({ length: 49 }, () => ({}))))?.mergeRequests).toBe('49');
  });

  it('when the open list could not be read, then only its count is missing', () => {
    expect(countsOf(ok(branches(2)), ok(tags(1)), failed)).toEqual({ branches: 2, tags: 1 });
  });

  it('when the branches or the tags could not be read, then no tab shows a count', () => {
    expect(countsOf(failed, ok(tags(1)), ok([]))).toBeUndefined();
    expect(countsOf(ok(branches(2)), failed, ok([]))).toBeUndefined();
  });
});
