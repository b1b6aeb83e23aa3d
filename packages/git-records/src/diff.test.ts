import { describe, expect, it } from '@jest/globals';
import type { storage } from '@githost/protos';
import { DiffCollector, toDiffEntry } from './diff.js';

const file = (over: Partial<storage.DiffFile__Output> = {}): storage.DiffFile__Output => ({
  path: 'a.txt',
  old_path: 'a.txt',
  status: 'modified',
  old_mode: '100644',
  new_mode: '100644',
  old_sha: '1'.repeat(40),
  new_sha: '2'.repeat(40),
  additions: 1,
  deletions: 1,
  binary: false,
  patch: '@@ -1 +1 @@\n-a\n+b\n',
  patch_omitted: false,
  ...over,
});

describe('toDiffEntry (CONTRACT §5 diff element)', () => {
  it('when a file is added, then the old side is null', () => {
    expect(toDiffEntry(file({ status: 'added', old_mode: '', old_sha: '', old_path: '' }))).toEqual({
      path: 'a.txt', old_path: 'a.txt', status: 'added', old_mode: null, new_mode: '100644', old_sha: null, new_sha: '2'.repeat(40), additions: 1, deletions: 1, binary: false, patch: '@@ -1 +1 @@\n-a\n+b\n',
    });
  });

  it('when a file is binary or its patch was cut, then patch is null', () => {
    expect(toDiffEntry(file({ binary: true, patch: '' })).patch).toBeNull();
    expect(toDiffEntry(file({ patch_omitted: true, patch: '' })).patch).toBeNull();
  });

  it('when a file is renamed, then old_path keeps the old name', () => {
    expect(toDiffEntry(file({ status: 'renamed', path: 'b.txt', old_path: 'a.txt' }))).toMatchObject({ path: 'b.txt', old_path: 'a.txt', status: 'renamed' });
  });
});

describe('DiffCollector', () => {
  it('when git-storage reports files left out, then diff_truncated', () => {
    const c = new DiffCollector(1024);
    c.add({ file: file(), truncated: false });
    c.add({ file: null, truncated: true });
    expect(c.result()).toMatchObject({ truncated: true, files: [expect.objectContaining({ path: 'a.txt' })] });
  });

  it('when a patch was omitted for size, then diff_truncated', () => {
    const c = new DiffCollector(1024);
    c.add({ file: file({ patch_omitted: true, patch: '' }), truncated: false });
    expect(c.result().truncated).toBe(true);
  });

  it('when the total patch budget runs out, then later patches are null and the diff is truncated', () => {
    const patch = 'x'.repeat(60);
    const c = new DiffCollector(100);
    c.add({ file: file({ path: 'one', patch }), truncated: false });
    c.add({ file: file({ path: 'two', patch }), truncated: false });
    const r = c.result();
    expect(r.files.map((f) => [f.path, f.patch === null])).toEqual([['one', false], ['two', true]]);
    expect(r.truncated).toBe(true);
  });

  it('when everything fits, then nothing is truncated', () => {
    const c = new DiffCollector(1024);
    c.add({ file: file(), truncated: false });
    c.add({ file: null, truncated: false });
    expect(c.result().truncated).toBe(false);
  });
});
