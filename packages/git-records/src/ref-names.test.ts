import { describe, expect, it } from '@jest/globals';
import { compareNames, nameIndex } from './ref-names.js';

describe('compareNames', () => {
  it('when names hold any characters, then the order is that of their UTF-8 bytes', () => {
    const names = ['b', 'a', 'a/b', 'a-b', 'ab', '\u{e000}', '\u{1f600}', 'é', 'Z', '', 'a\u{10000}', 'a\u{ffff}'];
    const byBytes = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect([...names].sort(compareNames)).toEqual(byBytes);
  });
});

describe('nameIndex', () => {
  it('when a name is looked up in a list ordered by compareNames, then its place is found, or where it would go', () => {
    const sorted = ['a', 'a/b', 'b', '\u{e000}', '\u{1f600}'].map((name) => ({ name }));
    expect(sorted.map((r) => nameIndex(sorted, r.name))).toEqual([0, 1, 2, 3, 4]);
    expect(nameIndex(sorted, 'a/')).toBe(1);
    expect(nameIndex(sorted, '\u{ffff}')).toBe(4);
    expect(nameIndex(sorted, 'z')).toBe(3);
  });
});
