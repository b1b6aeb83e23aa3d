import { describe, expect, it } from '@jest/globals';
import { newestFirst } from './push-events.js';

const graph = (entries: Array<[string, number, string[]]>) => new Map(entries.map(([oid, time, parents]) => [oid, { time, parents }]));

describe('newestFirst', () => {
  it('when a tip has a chain of new commits, then the newest `limit` come first and the walk stops at commits outside the new ones', () => {
    const g = graph([
      ['c3', 3, ['c2']],
      ['c2', 2, ['c1']],
      ['c1', 1, ['old']],
    ]);
    expect(newestFirst(g, 'c3', 20)).toEqual(['c3', 'c2', 'c1']);
    expect(newestFirst(g, 'c3', 2)).toEqual(['c3', 'c2']);
    expect(newestFirst(g, 'c1', 20)).toEqual(['c1']);
  });

  it('when a merge joins two lines, then commits come by commit time, each once', () => {
    const g = graph([
      ['m', 10, ['a2', 'b2']],
      ['a2', 8, ['a1']],
      ['b2', 9, ['base']],
      ['a1', 5, ['base']],
      ['base', 1, []],
    ]);
    expect(newestFirst(g, 'm', 20)).toEqual(['m', 'b2', 'a2', 'a1', 'base']);
  });
});
