import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeDirectoryDurably } from './durable-directory.js';

describe('makeDirectoryDurably', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'durable-dir-'));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it('makes the missing folders and syncs each folder that gained an entry, deepest first', async () => {
    const dir = path.join(root, 'lfs', 'repo', 'ab', 'cd');
    await expect(makeDirectoryDurably(dir)).resolves.toEqual([
      path.join(root, 'lfs', 'repo', 'ab'),
      path.join(root, 'lfs', 'repo'),
      path.join(root, 'lfs'),
      root,
    ]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('syncs only the new folders\' parents when part of the path was there', async () => {
    await makeDirectoryDurably(path.join(root, 'lfs', 'repo'));
    await expect(makeDirectoryDurably(path.join(root, 'lfs', 'repo', 'ab', 'cd'))).resolves.toEqual([
      path.join(root, 'lfs', 'repo', 'ab'),
      path.join(root, 'lfs', 'repo'),
    ]);
  });

  it('syncs nothing when the folder was there', async () => {
    await makeDirectoryDurably(path.join(root, 'x'));
    await expect(makeDirectoryDurably(path.join(root, 'x'))).resolves.toEqual([]);
  });
});
