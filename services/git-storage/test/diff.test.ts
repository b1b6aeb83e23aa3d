import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { collectStream } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-diff';
let s: TestStorage;
let base: string;
let head: string;
let bare: string;

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n') + '\n';

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  bare = s.repoPath(ID);
  const work = await makeWorkdir();
  await writeFiles(work, {
    'keep.txt': lines(20, 'keep'),
    'edit.txt': lines(10, 'edit'),
    'gone.txt': 'bye\n',
    'old name.txt': lines(30, 'rename'),
    'tochange': 'was a file\n',
    'img.bin': Buffer.from([0, 1, 2, 3]),
    'huge.txt': lines(10, 'huge'),
  });
  base = await commitAll(work, 'base');
  await writeFiles(work, {
    'edit.txt': lines(10, 'edit').replace('edit line 3\n', 'changed 3\nadded 3b\n'),
    'new.txt': 'hello\n',
    'img.bin': Buffer.from([0, 9, 9, 9]),
    'huge.txt': lines(5000, 'big'),
  });
  await rm(path.join(work, 'gone.txt'));
  await git(work, 'mv', 'old name.txt', 'new name.txt');
  await rm(path.join(work, 'tochange'));
  await symlink('keep.txt', path.join(work, 'tochange'));
  head = await commitAll(work, 'change everything');
  await pushTo(s, ID, work, 'main');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

const diff = (from: string, to: string, limits: { max_files?: number; max_patch_bytes?: number } = {}) =>
  collectStream<storage.DiffResponse__Output>(s.client.Diff({ repository_id: ID, from_oid: from, to_oid: to, ...limits }));

describe('Diff', () => {
  it('when two commits are compared, then each file comes once with the status, modes, shas and counts git reports', async () => {
    const msgs = await diff(base, head);
    const last = msgs.pop()!;
    expect(last).toMatchObject({ file: null, truncated: false });
    const files = msgs.map((m) => m.file!);
    const numstat = execFileSync('git', [`--git-dir=${bare}`, 'diff-tree', '-r', '-M', '--numstat', base, head]).toString().trim().split('\n');
    expect(files.map((f) => f.path)).toEqual(['edit.txt', 'gone.txt', 'huge.txt', 'img.bin', 'new name.txt', 'new.txt', 'tochange']);
    const byPath = Object.fromEntries(files.map((f) => [f.path, f]));
    expect(byPath['edit.txt']).toMatchObject({ status: 'modified', old_path: 'edit.txt', old_mode: '100644', new_mode: '100644', additions: 2, deletions: 1, binary: false, patch_omitted: false });
    expect(byPath['edit.txt']!.patch).toBe(execFileSync('git', [`--git-dir=${bare}`, 'diff', base, head, '--', 'edit.txt']).toString().split('\n').slice(4).join('\n'));
    expect(byPath['gone.txt']).toMatchObject({ status: 'deleted', new_mode: '', new_sha: '', deletions: 1, patch: '@@ -1 +0,0 @@\n-bye\n' });
    expect(byPath['new.txt']).toMatchObject({ status: 'added', old_mode: '', old_sha: '', new_mode: '100644', additions: 1, patch: '@@ -0,0 +1 @@\n+hello\n' });
    expect(byPath['new name.txt']).toMatchObject({ status: 'renamed', old_path: 'old name.txt', additions: 0, deletions: 0, patch: '' });
    expect(byPath['img.bin']).toMatchObject({ status: 'modified', binary: true, patch: '', additions: 0, deletions: 0 });
    expect(byPath['tochange']).toMatchObject({ status: 'type_changed', old_mode: '100644', new_mode: '120000', additions: 1, deletions: 1 });
    for (const row of numstat) {
      const [a, d, p] = row.split('\t');
      if (a === '-' || p === 'tochange') continue;
      const name = p!.includes('=>') ? 'new name.txt' : p!;
      expect([byPath[name]!.additions, byPath[name]!.deletions]).toEqual([Number(a), Number(d)]);
    }
    const shas = execFileSync('git', [`--git-dir=${bare}`, 'rev-parse', `${head}:edit.txt`, `${base}:edit.txt`]).toString().trim().split('\n');
    expect([byPath['edit.txt']!.new_sha, byPath['edit.txt']!.old_sha]).toEqual(shas);
  });

  it('when a patch is larger than max_patch_bytes, then it is omitted but still counted', async () => {
    const msgs = await diff(base, head, { max_patch_bytes: 1000 });
    const huge = msgs.find((m) => m.file?.path === 'huge.txt')!.file!;
    expect(huge).toMatchObject({ patch_omitted: true, patch: '', additions: 5000, deletions: 10 });
    expect(msgs.find((m) => m.file?.path === 'new.txt')!.file!.patch).toBe('@@ -0,0 +1 @@\n+hello\n');
  });

  it('when more files changed than max_files, then only that many come and the last message says truncated', async () => {
    const msgs = await diff(base, head, { max_files: 2 });
    expect(msgs.map((m) => m.file?.path ?? null)).toEqual(['edit.txt', 'gone.txt', null]);
    expect(msgs[2]!.truncated).toBe(true);
  });

  it('when the commits are equal, then only the final message comes', async () => {
    expect(await diff(head, head)).toEqual([expect.objectContaining({ file: null, truncated: false })]);
  });

  it('when a commit does not exist, then NOT_FOUND', async () => {
    await expect(diff(base, 'e'.repeat(40))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when an id is not 40 hex, then INVALID_ARGUMENT', async () => {
    await expect(diff(base, '--output=/tmp/x')).rejects.toMatchObject({ kind: 'validation' });
  });
});
