import { describe, expect, it } from '@jest/globals';
import { countTreeRecords, parseTreeRecords } from './tree.js';

const O1 = '1'.repeat(40);
const O2 = '2'.repeat(40);
const O3 = '3'.repeat(40);
const O4 = '4'.repeat(40);

const records = Buffer.from(
  [
    `100644 blob ${O1}      12\tREADME.md`,
    `040000 tree ${O2}       -\tsrc`,
    `160000 commit ${O3}       -\tvendor/lib`,
    `120000 blob ${O4}       7\tlink ✓`,
    `100755 blob ${O1} 1048576\twith\ttab`,
  ].join('\0') + '\0',
);

describe('parseTreeRecords (CONTRACT §5 tree entry)', () => {
  it('when given ls-tree -l -z records, then each becomes {name, path, type, mode, sha, size} in order', () => {
    expect(parseTreeRecords(records, '')).toEqual([
      { name: 'README.md', path: 'README.md', type: 'blob', mode: '100644', sha: O1, size: 12 },
      { name: 'src', path: 'src', type: 'tree', mode: '040000', sha: O2, size: null },
      { name: 'vendor/lib', path: 'vendor/lib', type: 'commit', mode: '160000', sha: O3, size: null },
      { name: 'link ✓', path: 'link ✓', type: 'blob', mode: '120000', sha: O4, size: 7 },
      { name: 'with\ttab', path: 'with\ttab', type: 'blob', mode: '100755', sha: O1, size: 1048576 },
    ]);
  });

  it('when listing a subdirectory, then paths carry the directory prefix', () => {
    expect(parseTreeRecords(records, 'a/b')[0]?.path).toBe('a/b/README.md');
  });

  it('when the tree is empty, then there are no entries', () => {
    expect(parseTreeRecords(new Uint8Array(0), '')).toEqual([]);
  });

  it('when a record is malformed, then parsing fails loudly', () => {
    expect(() => parseTreeRecords(Buffer.from('garbage\0'), '')).toThrow('malformed tree record');
  });

  it('when a record lacks its fields, then parsing fails loudly', () => {
    expect(() => parseTreeRecords(Buffer.from('100644 blob\tname\0'), '')).toThrow('malformed tree record');
  });

  it('when a record has an unknown type, then parsing fails loudly', () => {
    expect(() => parseTreeRecords(Buffer.from(`100644 tag ${O1}       1\tname\0`), '')).toThrow('malformed tree record');
  });
});

describe('parseTreeRecords with a limit, countTreeRecords', () => {
  it('when a limit is given, then only the first that many records are decoded, in order', () => {
    expect(parseTreeRecords(records, '', 2).map((e) => e.name)).toEqual(['README.md', 'src']);
    expect(parseTreeRecords(records, '', 5)).toEqual(parseTreeRecords(records, ''));
    expect(parseTreeRecords(records, '', 99)).toEqual(parseTreeRecords(records, ''));
  });

  it('when records are counted, then every NUL-terminated record counts once, and a last one without NUL too', () => {
    expect(countTreeRecords(records)).toBe(5);
    expect(countTreeRecords(records.subarray(0, records.length - 1))).toBe(5);
    expect(countTreeRecords(new Uint8Array(0))).toBe(0);
  });
});
