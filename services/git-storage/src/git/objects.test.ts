import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import path from 'node:path';
import { ReadCaches } from '../cache/read-caches.js';
import { cleanupWorkdirs, commitAll, git, makeWorkdir, writeFiles } from '../testing.js';
import { CatfilePool } from './catfile-pool.js';
import { CatfileProcess } from './catfile-process.js';
import { readTreeListing } from './objects.js';

// A bounded tree read (docs/decisions/big-pages.md#bounded-tree-read) on real repositories: the
// first `limit` records of `git ls-tree --long -z`, the whole tree's count, and cat-file asked the
// sizes of those records' blobs only.

let work: string;
let gitDir: string;
let head: string;
let tag: string;
let pool: CatfilePool;
/** The root's records as git lists them: trees, blobs and a submodule, 40 in all. */
let rootRecords: string[];
let wideRecords: string[];

beforeAll(async () => {
  work = await makeWorkdir();
  gitDir = path.join(work, '.git');
  const files: Record<string, string> = { 'a-dir/x.txt': 'x\n', 'm-dir/y.txt': 'y\n' };
  for (let i = 0; i < 36; i++) files[`f${String(i).padStart(2, '0')}.txt`] = `file ${i}\n`.repeat(i + 1);
  for (let i = 0; i < 300; i++) files[`wide/w${String(i).padStart(3, '0')}.txt`] = `wide ${i}\n`;
  await writeFiles(work, files);
  // An embedded repository becomes a submodule entry (mode 160000).
  await writeFiles(work, { 'g-sub/inner.txt': 'inner\n' });
  await git(path.join(work, 'g-sub'), 'init', '-q');
  await commitAll(path.join(work, 'g-sub'), 'inner');
  head = await commitAll(work, 'first');
  await git(work, 'tag', '-a', 'v1', '-m', 'v1');
  tag = (await git(work, 'rev-parse', 'refs/tags/v1')).trim();
  const records = async (spec: string) => (await git(work, 'ls-tree', '--long', '-z', spec)).split('\0').filter(Boolean);
  rootRecords = await records(head);
  wideRecords = await records(`${head}:wide`);
  pool = new CatfilePool();
});

afterAll(async () => {
  pool.close();
  await cleanupWorkdirs();
});

afterEach(() => {
  jest.restoreAllMocks();
});

const joined = (records: string[]) => records.map((r) => `${r}\0`).join('');

/** The `info` commands written to cat-file in batches (the blob size lookups of a listing). */
function countInfoCommands(): () => number {
  let infos = 0;
  const real = CatfileProcess.prototype.sendBatch;
  jest.spyOn(CatfileProcess.prototype, 'sendBatch').mockImplementation(function (this: CatfileProcess, commands: Buffer) {
    infos += commands.toString('latin1').split('\n').filter((line) => line.startsWith('info ')).length;
    return real.call(this, commands);
  });
  return () => infos;
}

describe('readTreeListing with a limit', () => {
  it('when any limit from 1 past the tree is asked, then the first limit records of git ls-tree and the whole count', async () => {
    expect(rootRecords.map((r) => r.split(' ')[1])).toEqual(expect.arrayContaining(['tree', 'blob', 'commit']));
    for (let limit = 1; limit <= rootRecords.length + 30; limit++) {
      const listing = await readTreeListing(pool, new ReadCaches(), gitDir, head, '', { limit });
      expect([limit, listing.count, listing.entries.toString('utf8')]).toEqual([limit, rootRecords.length, joined(rootRecords.slice(0, limit))]);
    }
  });

  it('when a limit is asked of a cold tree, then cat-file is asked the sizes of the blobs among the first limit entries only, and nothing is kept', async () => {
    const caches = new ReadCaches();
    const infos = countInfoCommands();
    const listing = await readTreeListing(pool, caches, gitDir, head, 'wide', { limit: 10 });
    expect([listing.count, listing.entries.toString('utf8'), infos()]).toEqual([300, joined(wideRecords.slice(0, 10)), 10]);
    // A partial listing never sits where a whole one is looked for.
    expect(caches.trees.size).toBe(0);
    const whole = await readTreeListing(pool, caches, gitDir, head, 'wide');
    expect([whole.count, whole.entries.toString('utf8'), infos()]).toEqual([300, joined(wideRecords), 310]);
  });

  it('when the whole listing is kept, then a limited read cuts it without asking cat-file any size', async () => {
    const caches = new ReadCaches();
    await readTreeListing(pool, caches, gitDir, head, 'wide');
    const infos = countInfoCommands();
    const listing = await readTreeListing(pool, caches, gitDir, head, 'wide', { limit: 7 });
    expect([listing.count, listing.entries.toString('utf8'), infos()]).toEqual([300, joined(wideRecords.slice(0, 7)), 0]);
  });

  it('when the limit is the largest uint32, then the whole listing, kept as a read without a limit keeps it', async () => {
    const caches = new ReadCaches();
    const listing = await readTreeListing(pool, caches, gitDir, head, 'wide', { limit: 0xffffffff });
    expect([listing.count, listing.entries.toString('utf8'), caches.trees.size]).toEqual([300, joined(wideRecords), 1]);
  });

  it('when require_commit is asked with a limit, then a commit id reads the first entries and a tag id is Commit not found', async () => {
    const listing = await readTreeListing(pool, new ReadCaches(), gitDir, head, 'wide', { requireCommit: true, limit: 3 });
    expect([listing.count, listing.entries.toString('utf8')]).toEqual([300, joined(wideRecords.slice(0, 3))]);
    await expect(readTreeListing(pool, new ReadCaches(), gitDir, tag, 'wide', { requireCommit: true, limit: 3 })).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${tag}` });
    // The refusal left the process in step.
    const again = await readTreeListing(pool, new ReadCaches(), gitDir, head, '', { limit: 2 });
    expect(again.entries.toString('utf8')).toBe(joined(rootRecords.slice(0, 2)));
  });

  it('when the path is a file, a submodule or missing, then the refusals of a read without a limit', async () => {
    const read = (p: string) => readTreeListing(pool, new ReadCaches(), gitDir, head, p, { limit: 5 });
    await expect(read('f00.txt')).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: f00.txt' });
    await expect(read('g-sub')).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: g-sub' });
    await expect(read('nope')).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: nope' });
  });
});
