import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CatFileBatch } from '../src/catfile.js';
import { ensureRepo, type GeneratedRepo } from '../src/generate-repo.js';
import { git } from '../src/git.js';
import { DEFAULT_PARAMS } from '../src/params.js';

describe('CatFileBatch', () => {
  let dir: string;
  let repo: GeneratedRepo;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'githost-bench-cat-'));
    repo = await ensureRepo({ ...DEFAULT_PARAMS, commits: 5, files: 40, wideEntries: 5, smallEntries: 3, bigFiles: 0, maxRegularBlob: 512, diffSizes: [] }, { dir });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('when a 1 MiB blob and then a tree are read in a row, then both match what git cat-file -p prints', async () => {
    const cat = new CatFileBatch(repo.path);
    try {
      const blob = await cat.read(`main:${repo.known.blob1m}`);
      const expected = (await git(['cat-file', '-p', `main:${repo.known.blob1m}`], { cwd: repo.path })).stdout;
      expect(blob.type).toBe('blob');
      expect(blob.size).toBe(1024 * 1024);
      expect(blob.content.equals(expected)).toBe(true);
      const tree = await cat.read(`main:${repo.known.smallDir}`);
      expect(tree.type).toBe('tree');
      expect(tree.content.includes(Buffer.from('blob-10k.txt'))).toBe(true);
    } finally {
      cat.close();
    }
  });

  it('when an object does not exist, then the read is rejected and the next read still works', async () => {
    const cat = new CatFileBatch(repo.path);
    try {
      await expect(cat.read('main:no/such/path')).rejects.toThrow('missing object');
      expect((await cat.read(repo.head)).type).toBe('commit');
    } finally {
      cat.close();
    }
  });
});
