import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFileDurably, DirectorySync } from './durable-file.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'githost-durable-file-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('createFileDurably with a DirectorySync', () => {
  it('when a file is created with its directory synced, then it holds the content, for the owner alone, and exists only once', async () => {
    const dir = path.join(root, 'a');
    await mkdir(dir);
    const sync = new DirectorySync(dir);
    await createFileDurably(path.join(dir, 'one'), 'first\n', sync);
    await createFileDurably(path.join(dir, 'two'), 'second\n', sync);
    expect(await readFile(path.join(dir, 'one'), 'utf8')).toBe('first\n');
    expect((await stat(path.join(dir, 'two'))).mode & 0o777).toBe(0o600);
    await expect(createFileDurably(path.join(dir, 'one'), 'again\n', sync)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(dir, 'one'), 'utf8')).toBe('first\n');
  });

  it('when the directory did not exist at the first sync, then that sync fails and a later one, once it exists, succeeds', async () => {
    const dir = path.join(root, 'later');
    const sync = new DirectorySync(dir);
    await expect(sync.sync()).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(dir);
    await expect(sync.sync()).resolves.toBeUndefined();
  });
});
