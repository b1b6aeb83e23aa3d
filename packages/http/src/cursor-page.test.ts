import { describe, expect, it } from '@jest/globals';
import { cursorLinks, decodeCursor, encodeCursor, parseCursorPage } from './cursor-page.js';

const key = { at: '1795942756900028', tie: '42' };

describe('parseCursorPage', () => {
  it('when neither per_page nor cursor is given, then no page is asked for (the list answers as the spec says)', () => {
    expect(parseCursorPage({})).toBeNull();
    expect(parseCursorPage({ state: 'open', limit: '5', page: '2' })).toBeNull();
  });

  it('when per_page is 1 to 100, then that many from the newest; a cursor alone means 30', () => {
    expect(parseCursorPage({ per_page: '1' })).toEqual({ perPage: 1, start: { kind: 'newest' } });
    expect(parseCursorPage({ per_page: '100' })).toEqual({ perPage: 100, start: { kind: 'newest' } });
    expect(parseCursorPage({ cursor: encodeCursor({ kind: 'older', key }) })).toEqual({ perPage: 30, start: { kind: 'older', key } });
  });

  it.each([['0'], ['101'], ['-1'], ['1.5'], [''], ['abc'], ['1000']])('when per_page is %j, then 400 naming the bounds', (v) => {
    expect(() => parseCursorPage({ per_page: v })).toThrow(expect.objectContaining({ kind: 'validation', message: 'per_page must be an integer from 1 to 100' }));
  });

  it('when a parameter is given twice, page is given beside them, or the cursor is not one a Link gave, then 400', () => {
    expect(() => parseCursorPage({ per_page: ['1', '2'] })).toThrow(expect.objectContaining({ kind: 'validation', message: 'per_page must be given once' }));
    expect(() => parseCursorPage({ per_page: '10', page: '2' })).toThrow(expect.objectContaining({ kind: 'validation' }));
    for (const bad of ['x', '!!', Buffer.from('o.1').toString('base64url'), Buffer.from('o.1.2.3').toString('base64url'), Buffer.from('o.99999999999999999999.1').toString('base64url'), 'a'.repeat(101)]) {
      expect(() => parseCursorPage({ cursor: bad })).toThrow(expect.objectContaining({ kind: 'validation', message: 'cursor is not valid: use the one a Link header gave' }));
    }
  });

  it('when a cursor is encoded, then it decodes to the same start', () => {
    for (const start of [{ kind: 'newest' as const }, { kind: 'oldest' as const }, { kind: 'older' as const, key }, { kind: 'newer' as const, key: { at: '-5', tie: '0' } }]) {
      expect(decodeCursor(encodeCursor(start))).toEqual(start);
    }
  });
});

describe('cursorLinks', () => {
  const page = { perPage: 2, start: { kind: 'newest' as const } };
  const links = (hasNewer: boolean, hasOlder: boolean, query = 'state=open&per_page=2') =>
    cursorLinks('https://git.example', '/api/repos/o/r/merge-requests', query, page, { first: key, last: { at: '7', tie: '3' }, hasNewer, hasOlder });

  it('when everything fits on the page, then there is no Link header', () => {
    expect(links(false, false)).toBeUndefined();
  });

  it('when on the first page of several, then next and last, the other parameters kept', () => {
    const next = encodeCursor({ kind: 'older', key: { at: '7', tie: '3' } });
    expect(links(false, true)).toBe(
      `<https://git.example/api/repos/o/r/merge-requests?state=open&per_page=2&cursor=${next}>; rel="next", <https://git.example/api/repos/o/r/merge-requests?state=open&per_page=2&cursor=${encodeCursor({ kind: 'oldest' })}>; rel="last"`,
    );
  });

  it('when in the middle, then prev, next, last and first, as GitHub orders them; per_page is spelled out', () => {
    const header = links(true, true, `cursor=${encodeCursor({ kind: 'older', key })}`)!;
    expect(header.split(', ').map((l) => /rel="(\w+)"/.exec(l)![1])).toEqual(['prev', 'next', 'last', 'first']);
    expect(header).toContain(`<https://git.example/api/repos/o/r/merge-requests?cursor=${encodeCursor({ kind: 'newer', key })}&per_page=2>; rel="prev"`);
    expect(header).toContain('<https://git.example/api/repos/o/r/merge-requests?per_page=2>; rel="first"');
  });
});
