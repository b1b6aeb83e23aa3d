import { describe, expect, it } from '@jest/globals';
import { formatLsTree, parseLsTree, parseRawTree } from './tree-format.js';

const oid = (c: string) => c.repeat(40);
const raw = (mode: string, name: string, id: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(id, 'hex')]);

describe('tree format', () => {
  it('when a raw tree is parsed and formatted, then records follow ls-tree --long -z exactly', () => {
    const tree = Buffer.concat([raw('100644', 'a b.txt', oid('1')), raw('40000', 'dir', oid('2')), raw('160000', 'sub', oid('3')), raw('120000', 'link', oid('4'))]);
    const entries = parseRawTree(tree);
    expect(entries.map((e) => e.mode)).toEqual(['100644', '040000', '160000', '120000']);
    const out = formatLsTree(entries, new Map([[oid('1'), 12], [oid('4'), 1234567]]));
    expect(out.toString()).toBe(
      `100644 blob ${oid('1')}      12\ta b.txt\x00040000 tree ${oid('2')}       -\tdir\x00160000 commit ${oid('3')}       -\tsub\x00120000 blob ${oid('4')} 1234567\tlink\0`,
    );
    expect(parseLsTree(out)).toEqual([
      { mode: '100644', type: 'blob', oid: oid('1'), size: 12, name: 'a b.txt' },
      { mode: '040000', type: 'tree', oid: oid('2'), size: null, name: 'dir' },
      { mode: '160000', type: 'commit', oid: oid('3'), size: null, name: 'sub' },
      { mode: '120000', type: 'blob', oid: oid('4'), size: 1234567, name: 'link' },
    ]);
  });

  it('when a tree object is cut short, then parsing refuses it', () => {
    expect(() => parseRawTree(raw('100644', 'x', oid('1')).subarray(0, 20))).toThrow('corrupt tree object');
  });
});
