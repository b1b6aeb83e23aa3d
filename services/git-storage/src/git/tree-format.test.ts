import { describe, expect, it } from '@jest/globals';
import { blobInfoCommands, findEntry, formatEntries, indexTree, pieceOfEntries, sizeOfInfoLine, type TreeIndex } from './tree-format.js';

/** The whole listing: every entry in one piece. */
const formatListing = (raw: Buffer, index: TreeIndex, sizes: Float64Array) => formatEntries(raw, index, sizes, 0, index.count, 0);

const oid = (c: string) => c.repeat(40);
const raw = (mode: string, name: string, id: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(id, 'hex')]);

describe('tree format', () => {
  it('when a raw tree is parsed and formatted, then records follow ls-tree --long -z exactly', () => {
    const tree = Buffer.concat([raw('100644', 'a b.txt', oid('1')), raw('40000', 'dir', oid('2')), raw('160000', 'sub', oid('3')), raw('120000', 'link', oid('4'))]);
    const index = indexTree(tree);
    expect(index.count).toBe(4);
    expect(index.blobs).toBe(2);
    const out = formatListing(tree, index, Float64Array.from([12, 1234567]));
    expect(out.toString()).toBe(
      `100644 blob ${oid('1')}      12\ta b.txt\x00040000 tree ${oid('2')}       -\tdir\x00160000 commit ${oid('3')}       -\tsub\x00120000 blob ${oid('4')} 1234567\tlink\0`,
    );
  });

  it('when a listing is formatted in pieces of about a size, then the pieces joined are the whole listing and each holds its own blobs', () => {
    const entries = Array.from({ length: 300 }, (_, i) => raw(i % 4 === 3 ? '40000' : '100644', `f${i}${'n'.repeat(i % 50)}`, (i % 16).toString(16).repeat(40)));
    const tree = Buffer.concat(entries);
    const index = indexTree(tree);
    const sizes = Float64Array.from({ length: index.blobs }, (_, b) => b * 1000);
    const pieces: Buffer[] = [];
    for (let from = 0, blob = 0; from < index.count; ) {
      const { to, blobs } = pieceOfEntries(index, from, 2048);
      expect(to).toBeGreaterThan(from);
      pieces.push(formatEntries(tree, index, sizes, from, to, blob));
      expect(pieces[pieces.length - 1]!.length).toBeLessThanOrEqual(2048);
      blob += blobs;
      from = to;
    }
    expect(pieces.length).toBeGreaterThan(5);
    expect(Buffer.concat(pieces).equals(formatListing(tree, index, sizes))).toBe(true);
    // An entry longer than the size is a piece of its own.
    expect(pieceOfEntries(indexTree(raw('100644', 'x'.repeat(300), oid('1'))), 0, 100)).toEqual({ to: 1, blobs: 1 });
  });

  it('when only the first entries are indexed, then they are indexed as a whole index has them, with their blobs and info commands, and the rest counted', () => {
    const tree = Buffer.concat(Array.from({ length: 50 }, (_, i) => raw(i % 3 === 0 ? '40000' : '100644', `e${i}${'\t'.repeat(i % 7)}`, (i % 16).toString(16).repeat(40))));
    const whole = indexTree(tree);
    for (const upTo of [1, 2, 17, 49, 50, 51]) {
      const first = indexTree(tree, upTo);
      const n = Math.min(upTo, 50);
      const sizes = Float64Array.from({ length: whole.blobs }, (_, b) => b);
      expect([upTo, first.count, first.total, whole.total]).toEqual([upTo, n, 50, 50]);
      expect(formatEntries(tree, first, sizes, 0, n, 0).equals(formatEntries(tree, whole, sizes, 0, n, 0))).toBe(true);
      expect(blobInfoCommands(tree, first).toString()).toBe(`${Array.from({ length: n }, (_, i) => i).filter((i) => i % 3 !== 0).map((i) => `info ${(i % 16).toString(16).repeat(40)}\n`).join('')}flush\n`);
    }
    // Entries past the indexed ones are counted, and a cut one is still refused.
    expect(() => indexTree(tree.subarray(0, tree.length - 1), 3)).toThrow('corrupt tree object');
  });

  it('when a tree object is cut short, then parsing refuses it', () => {
    expect(() => indexTree(raw('100644', 'x', oid('1')).subarray(0, 20))).toThrow('corrupt tree object');
    expect(() => findEntry(raw('100644', 'x', oid('1')).subarray(0, 20), Buffer.from('y'))).toThrow('corrupt tree object');
  });

  it('when sizes are wider than 7 digits, zero or unknown, then they are written as ls-tree does', () => {
    const tree = Buffer.concat([raw('100644', 'big', oid('a')), raw('100755', 'empty', oid('b')), raw('100644', 'gone', oid('c'))]);
    const out = formatListing(tree, indexTree(tree), Float64Array.from([12345678901, 0, -1]));
    expect(out.toString()).toBe(`100644 blob ${oid('a')} 12345678901\tbig\x00100755 blob ${oid('b')}       0\tempty\x00100644 blob ${oid('c')}       -\tgone\0`);
  });

  it('when a tree has legacy modes (100664, 100775), then they read as git canonicalises them', () => {
    const tree = Buffer.concat([raw('100664', 'a', oid('1')), raw('100775', 'b', oid('2'))]);
    expect(formatListing(tree, indexTree(tree), Float64Array.from([1, 2])).toString()).toBe(`100644 blob ${oid('1')}       1\ta\x00100755 blob ${oid('2')}       2\tb\0`);
    expect(findEntry(tree, Buffer.from('b'))).toEqual({ mode: '100755', oid: oid('2') });
  });

  it('when blob sizes are asked for, then one info line per blob entry is written, then flush', () => {
    const tree = Buffer.concat([raw('100644', 'a', oid('1')), raw('40000', 'd', oid('2')), raw('120000', 'l', oid('3'))]);
    expect(blobInfoCommands(tree, indexTree(tree)).toString()).toBe(`info ${oid('1')}\ninfo ${oid('3')}\nflush\n`);
  });

  it('when info answers are read, then the size is the last field and a missing object is -1', () => {
    const line = (s: string) => sizeOfInfoLine(Buffer.from(`xx${s}\n`), 2, 2 + s.length);
    expect(line(`${oid('1')} blob 1234`)).toBe(1234);
    expect(line(`${oid('1')} blob 0`)).toBe(0);
    expect(line(`${oid('1')} missing`)).toBe(-1);
  });

  it('when an entry is looked up by name, then only the exact name matches', () => {
    const tree = Buffer.concat([raw('100644', 'a', oid('1')), raw('100644', 'a\\b.txt', oid('2')), raw('40000', 'ab', oid('3'))]);
    expect(findEntry(tree, Buffer.from('a\\b.txt'))).toEqual({ mode: '100644', oid: oid('2') });
    expect(findEntry(tree, Buffer.from('ab'))).toEqual({ mode: '040000', oid: oid('3') });
    expect(findEntry(tree, Buffer.from('b.txt'))).toBeUndefined();
  });
});
