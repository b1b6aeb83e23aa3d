import { describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { pageOfRefs, refPageLinks, refPageOf } from './ref-pages.js';

const refused = (query: Record<string, unknown>) => {
  try {
    refPageOf(query);
    return undefined;
  } catch (err) {
    return err instanceof AppError ? [err.kind, err.message] : err;
  }
};

describe('refPageOf (docs/decisions/ref-pages.md)', () => {
  it('when none of page, per_page, q is given, then no paging: the seed answer', () => {
    expect(refPageOf({})).toBeUndefined();
    expect(refPageOf({ limit: '5' })).toBeUndefined();
  });

  it('when any is given, then the defaults fill the others: 30 a page from page 1', () => {
    expect(refPageOf({ q: ' Feat ' })).toEqual({ page: 1, perPage: 30, q: 'Feat' });
    expect(refPageOf({ per_page: '100', page: '7' })).toEqual({ page: 7, perPage: 100, q: '' });
  });

  it('when a value is malformed, out of range or repeated, then a 400 naming it', () => {
    expect(refused({ per_page: '0' })).toEqual(['validation', 'per_page must be an integer from 1 to 100']);
    expect(refused({ per_page: '101' })).toEqual(['validation', 'per_page must be an integer from 1 to 100']);
    expect(refused({ per_page: '5x' })).toEqual(['validation', 'per_page must be an integer from 1 to 100']);
    expect(refused({ page: '0' })).toEqual(['validation', 'page must be an integer from 1 to 1000000']);
    expect(refused({ page: '-1' })).toEqual(['validation', 'page must be an integer from 1 to 1000000']);
    expect(refused({ page: ['1', '2'] })).toEqual(['validation', 'page must be given once']);
    expect(refused({ q: 'x'.repeat(101) })).toEqual(['validation', 'q must be at most 100 characters']);
  });
});

describe('pageOfRefs', () => {
  const refs = ['alpha', 'Feature/A', 'feature/b', 'main', 'old-feature'].map((name) => ({ name }));

  it('when q is given, then the names holding it in any letter case, in the list order, and their count', () => {
    expect(pageOfRefs(refs, { page: 1, perPage: 2, q: 'FEAT' }, (r) => r.name)).toEqual({ items: [{ name: 'Feature/A' }, { name: 'feature/b' }], total: 3 });
    expect(pageOfRefs(refs, { page: 2, perPage: 2, q: 'feat' }, (r) => r.name)).toEqual({ items: [{ name: 'old-feature' }], total: 3 });
  });

  it('when the page is past the last, then empty with the count', () => {
    expect(pageOfRefs(refs, { page: 9, perPage: 2, q: '' }, (r) => r.name)).toEqual({ items: [], total: 5 });
  });
});

describe('refPageLinks', () => {
  it('when in the middle, then prev, next, last and first, only page changed', () => {
    expect(refPageLinks('/api/repos/a/b/branches', 'q=x&per_page=2&page=2', { page: 2, perPage: 2, q: 'x' }, 5)).toBe(
      '</api/repos/a/b/branches?q=x&per_page=2&page=1>; rel="prev", </api/repos/a/b/branches?q=x&per_page=2&page=3>; rel="next", </api/repos/a/b/branches?q=x&per_page=2&page=3>; rel="last", </api/repos/a/b/branches?q=x&per_page=2&page=1>; rel="first"',
    );
  });

  it('when one page holds everything, then no header', () => {
    expect(refPageLinks('/b', 'per_page=10', { page: 1, perPage: 10, q: '' }, 10)).toBeUndefined();
  });
});
