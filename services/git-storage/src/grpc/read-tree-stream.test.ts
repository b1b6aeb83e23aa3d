import { describe, expect, it } from '@jest/globals';
import { piecesOf } from './read-tree-stream.js';

const record = (name: string) => `100644 blob ${'a'.repeat(40)}       3\t${name}\0`;

describe('ReadTreeStream pieces', () => {
  it('when a listing is cut, then every piece ends at a record end, none exceeds the size, and joined they are the listing', () => {
    const listing = Buffer.from(Array.from({ length: 1000 }, (_, i) => record(`f${i}${'x'.repeat(i % 37)}`)).join(''));
    const pieces = [...piecesOf(listing, 4096)];
    expect(pieces.length).toBeGreaterThan(10);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(4096);
      expect(p[p.length - 1]).toBe(0);
    }
    expect(Buffer.concat(pieces).equals(listing)).toBe(true);
  });

  it('when a record is longer than a piece, then it is a piece of its own, never split', () => {
    const long = record('n'.repeat(300));
    const listing = Buffer.from(record('a') + long + record('b'));
    const pieces = [...piecesOf(listing, 100)].map((p) => p.toString());
    expect(pieces).toEqual([record('a'), long, record('b')]);
  });

  it('when the listing fits one piece or is empty, then it is one piece', () => {
    const small = Buffer.from(record('a') + record('b'));
    expect([...piecesOf(small, 1 << 16)]).toEqual([small]);
    expect([...piecesOf(Buffer.alloc(0), 1 << 16)]).toEqual([Buffer.alloc(0)]);
  });
});
