import { describe, expect, it } from '@jest/globals';
import type { Request, Response } from 'express';
import { pageOf, pagingOf, setCommitPagingHeaders, setLogPagingHeaders, setPagingHeaders } from './pagination.js';

const req = (query: Record<string, unknown>, originalUrl = '/api/v1/repos/search?q=x') => ({ query, originalUrl }) as unknown as Request;
function headersOf(total: number, page: number, limit: number, url?: string): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
  setPagingHeaders(req({}, url), res, total, { page, limit }, 'https://git.example.com');
  return headers;
}

describe('pagingOf', () => {
  it('when page and limit are absent, malformed or out of range, then Gitea\'s reading: page 1, limit 30, at most 50', () => {
    expect(pagingOf(req({}))).toEqual({ page: 1, limit: 30 });
    expect(pagingOf(req({ page: '3', limit: '10' }))).toEqual({ page: 3, limit: 10 });
    expect(pagingOf(req({ page: '0', limit: '500' }))).toEqual({ page: 1, limit: 50 });
    expect(pagingOf(req({ page: 'x', limit: '-2' }))).toEqual({ page: 1, limit: 30 });
    expect(pagingOf(req({ per_page: '5' }))).toEqual({ page: 1, limit: 5 });
    expect(pagingOf(req({ limit: '200' }), 30, 1000)).toEqual({ page: 1, limit: 200 });
  });
});

describe('setPagingHeaders', () => {
  it('when there are more pages, then X-Total-Count and Link with next, last, first, prev in Gitea\'s order', () => {
    expect(headersOf(25, 2, 10)).toEqual({
      'X-Total-Count': '25',
      Link: [
        '<https://git.example.com/api/v1/repos/search?q=x&page=3>; rel="next"',
        '<https://git.example.com/api/v1/repos/search?q=x&page=3>; rel="last"',
        '<https://git.example.com/api/v1/repos/search?q=x&page=1>; rel="first"',
        '<https://git.example.com/api/v1/repos/search?q=x&page=1>; rel="prev"',
      ].join(','),
    });
  });

  it('when one page holds everything, then the count alone', () => {
    expect(headersOf(3, 1, 30)).toEqual({ 'X-Total-Count': '3' });
    expect(headersOf(0, 1, 30)).toEqual({ 'X-Total-Count': '0' });
  });

  it('when a page past the end is asked, then Links as Gitea\'s paginator writes them: from the last page', () => {
    expect(headersOf(25, 9, 10)).toEqual({
      'X-Total-Count': '25',
      Link: ['<https://git.example.com/api/v1/repos/search?q=x&page=1>; rel="first"', '<https://git.example.com/api/v1/repos/search?q=x&page=2>; rel="prev"'].join(','),
    });
    expect(headersOf(3, 4, 30)).toEqual({ 'X-Total-Count': '3' });
  });

  it('when a commit list page is answered, then Gitea\'s commit headers on every page: the count, Link, X-Page, X-PerPage, X-Total, X-PageCount, X-HasMore', () => {
    const commitHeaders = (total: number, page: number, limit: number) => {
      const headers: Record<string, string> = {};
      const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
      setCommitPagingHeaders(req({}, '/api/v1/repos/a/b/commits?sha=main&limit=10'), res, total, { page, limit }, 'https://git.example.com');
      return headers;
    };
    const at = (page: number) => `<https://git.example.com/api/v1/repos/a/b/commits?sha=main&limit=10&page=${page}>`;
    expect(commitHeaders(24, 1, 10)).toEqual({
      'X-Total-Count': '24',
      Link: `${at(2)}; rel="next",${at(3)}; rel="last"`,
      'X-Page': '1',
      'X-PerPage': '10',
      'X-Total': '24',
      'X-PageCount': '3',
      'X-HasMore': 'true',
    });
    expect(commitHeaders(24, 2, 10)).toMatchObject({ 'X-Total-Count': '24', Link: `${at(3)}; rel="next",${at(3)}; rel="last",${at(1)}; rel="first",${at(1)}; rel="prev"`, 'X-Page': '2', 'X-HasMore': 'true' });
    expect(commitHeaders(24, 3, 10)).toMatchObject({ 'X-Total-Count': '24', Link: `${at(1)}; rel="first",${at(2)}; rel="prev"`, 'X-Page': '3', 'X-HasMore': 'false' });
    expect(commitHeaders(0, 1, 10)).toEqual({ 'X-Total-Count': '0', 'X-Page': '1', 'X-PerPage': '10', 'X-Total': '0', 'X-PageCount': '0', 'X-HasMore': 'false' });
  });

  it('when a log page has more after it, then X-HasMore and Link next, first, prev, but no count or last; its last page counts exactly', () => {
    const logHeaders = (count: number, more: boolean, page: number) => {
      const headers: Record<string, string> = {};
      const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
      setLogPagingHeaders(req({}, '/api/v1/repos/a/b/commits?limit=10'), res, count, more, { page, limit: 10 }, 'https://git.example.com');
      return headers;
    };
    expect(logHeaders(10, true, 2)).toEqual({
      'X-HasMore': 'true',
      Link: [
        '<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=3>; rel="next"',
        '<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=1>; rel="first"',
        '<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=1>; rel="prev"',
      ].join(','),
    });
    expect(logHeaders(4, false, 3)).toEqual({
      'X-HasMore': 'false',
      'X-Total-Count': '24',
      Link: '<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=1>; rel="first",<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=2>; rel="prev"',
    });
    expect(logHeaders(7, false, 1)).toEqual({ 'X-HasMore': 'false', 'X-Total-Count': '7' });
    expect(logHeaders(0, false, 9)).toEqual({
      'X-HasMore': 'false',
      Link: '<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=1>; rel="first",<https://git.example.com/api/v1/repos/a/b/commits?limit=10&page=8>; rel="prev"',
    });
  });

  it('when a page is sliced from a whole list, then the items of that page', () => {
    expect(pageOf([1, 2, 3, 4, 5], { page: 2, limit: 2 })).toEqual([3, 4]);
    expect(pageOf([1, 2, 3], { page: 3, limit: 2 })).toEqual([]);
  });
});
