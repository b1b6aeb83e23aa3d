import { describe, expect, it } from '@jest/globals';
import type { MergeRequestWithAuthor } from '@githost/api-types';
import { pageOf, type Paging } from '../http/pagination.js';
import { isNewestFirst, sortPulls } from './map-pull.js';
import { nextPathOf, readAllPages, readPages, type PageReader } from './walk-pages.js';

const BASE = '/api/repos/o/r/merge-requests';

/** A githost list of `rows` (newest first) answered in cursor pages of `per` with its Link header. */
function cursorList<T>(rows: T[], per: number, counted = false): { read: PageReader<T>; calls: string[] } {
  const calls: string[] = [];
  const read: PageReader<T> = async (path) => {
    calls.push(path);
    const at = Number(new URL(path, 'http://x').searchParams.get('cursor') ?? '0');
    const items = rows.slice(at, at + per);
    const more = at + per < rows.length;
    const link = more ? `<http://pub.example${BASE}?state=open&per_page=${per}&cursor=${at + per}>; rel="next", <http://pub.example${BASE}?state=open&per_page=${per}&cursor=l>; rel="last"` : undefined;
    return counted ? { items, link, total: rows.length } : { items, link };
  };
  return { read, calls };
}

const mr = (number: number, state: string, createdMinute: number, updatedMinute = createdMinute) =>
  ({
    number,
    state,
    title: `mr ${number}`,
    created_at: new Date(Date.UTC(2026, 10, 1, 0, createdMinute)).toISOString(),
    updated_at: new Date(Date.UTC(2026, 10, 1, 0, updatedMinute)).toISOString(),
  }) as unknown as MergeRequestWithAuthor;

describe('nextPathOf', () => {
  it('when the Link header has a next page, then its path and query on any host; none, then null', () => {
    expect(nextPathOf(`<http://pub/a?per_page=100&cursor=bzEuMg>; rel="prev", <http://pub${BASE}?state=open&per_page=100&cursor=bzEuMw>; rel="next", <http://pub/l>; rel="last"`)).toBe(
      `${BASE}?state=open&per_page=100&cursor=bzEuMw`,
    );
    expect(nextPathOf('<http://pub/a?cursor=Zg>; rel="first"')).toBeNull();
    expect(nextPathOf(undefined)).toBeNull();
    expect(nextPathOf('')).toBeNull();
  });
});

describe('readAllPages', () => {
  it('when a list of 250 is read in pages of 100, then every row once, in order, in 3 calls along rel="next"', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => i);
    const { read, calls } = cursorList(rows, 100);
    expect(await readAllPages(read, `${BASE}?state=open&per_page=100`)).toEqual(rows);
    expect(calls).toEqual([`${BASE}?state=open&per_page=100`, `${BASE}?state=open&per_page=100&cursor=100`, `${BASE}?state=open&per_page=100&cursor=200`]);
  });

  it('when the list is empty or fits one page, then one call', async () => {
    for (const n of [0, 100]) {
      const { read, calls } = cursorList(Array.from({ length: n }, (_, i) => i), 100);
      expect((await readAllPages(read, BASE)).length).toBe(n);
      expect(calls.length).toBe(1);
    }
  });

  it('when next points at another path or repeats the page read, then the walk ends there', async () => {
    const other: PageReader<number> = async () => ({ items: [1], link: '<http://pub/api/repos/o/other/merge-requests?cursor=x>; rel="next"' });
    expect(await readAllPages(other, BASE)).toEqual([1]);
    let n = 0;
    const loop: PageReader<number> = async () => ({ items: [++n], link: `<http://pub${BASE}?cursor=x>; rel="next"` });
    expect(await readAllPages(loop, BASE)).toEqual([1, 2]);
  });
});

describe('Gitea pages over whole githost lists', () => {
  // 120 merge requests: 1..120 created a minute apart; every third closed, every fifth (not closed) merged.
  const stateOf = (n: number) => (n % 3 === 0 ? 'closed' : n % 5 === 0 ? 'merged' : 'open');
  const all = Array.from({ length: 120 }, (_, i) => mr(i + 1, stateOf(i + 1), i + 1, 200 - (i + 1)));
  const newestFirst = (state: string) => all.filter((m) => m.state === state).reverse();

  async function giteaPages(states: string[], sort: unknown, limit: number): Promise<number[][]> {
    const lists = await Promise.all(states.map((s) => readAllPages(cursorList(newestFirst(s), 7).read, BASE)));
    const sorted = sortPulls(lists.flat(), sort);
    const pages: number[][] = [];
    for (let page = 1; page <= Math.ceil(sorted.length / limit); page++) pages.push(pageOf(sorted, { page, limit } as Paging).map((m) => m.number));
    return pages;
  }

  it('when state=all is paged by 50, newest first, then 120, 119, ... 1 exactly once over 3 pages', async () => {
    const pages = await giteaPages(['open', 'closed', 'merged'], undefined, 50);
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    expect(pages.flat()).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
  });

  it('when sorted oldest or by update, then the whole order, not each list\'s newest', async () => {
    expect((await giteaPages(['open', 'closed', 'merged'], 'oldest', 50)).flat()).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    // updated_at runs the other way round from created_at here.
    expect((await giteaPages(['open', 'closed', 'merged'], 'recentupdate', 30)).flat()).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect((await giteaPages(['open', 'closed', 'merged'], 'leastupdate', 30)).flat()).toEqual(Array.from({ length: 120 }, (_, i) => 120 - i));
  });

  it('when state=closed, then githost\'s closed and merged merged newest first', async () => {
    const closed = (await giteaPages(['closed', 'merged'], undefined, 50)).flat();
    expect(closed).toEqual(all.filter((m) => m.state !== 'open').map((m) => m.number).reverse());
    expect(closed.length).toBe(40 + 16);
  });
});

describe('readPages as deep as a Gitea page reaches', () => {
  it('when 50 of a counted list of 250 are wanted, then one call and githost\'s count', async () => {
    const { read, calls } = cursorList(Array.from({ length: 250 }, (_, i) => i), 50, true);
    expect(await readPages(read, BASE, 50)).toEqual({ rows: Array.from({ length: 50 }, (_, i) => i), total: 250 });
    expect(calls.length).toBe(1);
  });

  it('when 150 are wanted in pages of 100, then two calls; when the list ends first, its length is the count even unsent', async () => {
    const counted = cursorList(Array.from({ length: 250 }, (_, i) => i), 100, true);
    expect((await readPages(counted.read, BASE, 150)).total).toBe(250);
    expect(counted.calls.length).toBe(2);
    const short = cursorList([1, 2, 3], 100);
    expect(await readPages(short.read, BASE, 50)).toEqual({ rows: [1, 2, 3], total: 3 });
    const uncounted = cursorList(Array.from({ length: 250 }, (_, i) => i), 100);
    expect((await readPages(uncounted.read, BASE, 100)).total).toBeUndefined();
  });

  it('when every page of state=all is read only as deep as it reaches, newest first, then the same pages as from the whole lists', async () => {
    const stateOf = (n: number) => (n % 3 === 0 ? 'closed' : n % 5 === 0 ? 'merged' : 'open');
    const all = Array.from({ length: 120 }, (_, i) => mr(i + 1, stateOf(i + 1), i + 1));
    const lists = ['open', 'closed', 'merged'].map((state) => all.filter((m) => m.state === state).reverse());
    expect(isNewestFirst(undefined) && isNewestFirst('priority') && !isNewestFirst('oldest') && !isNewestFirst('recentupdate')).toBe(true);
    const whole = sortPulls(lists.flat(), undefined).map((m) => m.number);
    for (const limit of [7, 30, 50]) {
      for (let page = 1; page <= Math.ceil(120 / limit) + 1; page++) {
        const heads = await Promise.all(lists.map((l) => readPages(cursorList(l, 100, true).read, BASE, page * limit)));
        expect(heads.reduce((n, h) => n + h.total!, 0)).toBe(120);
        const got = pageOf(sortPulls(heads.flatMap((h) => h.rows), undefined), { page, limit }).map((m) => m.number);
        expect(got).toEqual(whole.slice((page - 1) * limit, page * limit));
      }
    }
  });
});
