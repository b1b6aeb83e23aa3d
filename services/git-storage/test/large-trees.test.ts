import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { collectStream } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { gitProcessesStarted } from '../src/git/command.js';
import { cleanupWorkdirs, createTestRepository, rpc, startTestStorage, type TestStorage } from '../src/testing.js';

const ID = 'repo-large-trees';
const WIDE = 100_000;
let s: TestStorage;
let bare: string;
let first: string;
let second: string;

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${bare}`, ...args], { maxBuffer: 1 << 28 });

/**
 * `wide/` with 100,000 entries (regular, executable, symlink and a subdirectory; 64 distinct blobs of
 * different sizes) and `many/` with 2,000 are made by `git mktree` (fast-import inserts tree entries
 * one linear search at a time, minutes for 100,000); fast-import then writes the blobs before and
 * two commits after, plus files whose names hold backslashes. The second commit changes only
 * `root.txt`, so both commits share the `wide/` tree.
 */
function buildRepository(): void {
  const blobs: string[] = [];
  const blobStream: string[] = [];
  for (let b = 0; b < 64; b++) {
    const data = `blob ${b}\n`.repeat(b * 3);
    blobs.push(createHash('sha1').update(`blob ${Buffer.byteLength(data)}\0${data}`).digest('hex'));
    blobStream.push(`blob\ndata ${Buffer.byteLength(data)}\n${data}\n`);
  }
  // Packed, as pushed objects are: 64 loose blobs would make git open a file per lookup.
  execFileSync('git', [`--git-dir=${bare}`, '-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet'], { input: blobStream.join('') });
  const mktree = (lines: string[]) => execFileSync('git', [`--git-dir=${bare}`, 'mktree', '-z'], { input: lines.join('') }).toString().trim();
  const sub = mktree([`100644 blob ${blobs[2]}\tinner.txt\0`]);
  const wide = [`040000 tree ${sub}\tzz-sub\0`];
  for (let i = 0; i < WIDE; i++) {
    const mode = i % 97 === 0 ? '100755' : i % 89 === 0 ? '120000' : '100644';
    wide.push(`${mode} blob ${blobs[i % 64]}\tf${String(i).padStart(6, '0')}\0`);
  }
  const many: string[] = [];
  for (let i = 0; i < 2000; i++) many.push(`100644 blob ${blobs[i % 64]}\tm${i}\0`);
  const commits = [
    'commit refs/heads/main\nmark :1\ncommitter T <t@example.com> 1700000000 +0000\ndata 6\nfirst\n',
    `M 040000 ${mktree(wide)} wide\nM 040000 ${mktree(many)} many\n`,
    'M 100644 inline a\\b.txt\ndata 10\nbackslash\n',
    'M 100644 inline odd\\dir/x.txt\ndata 2\nx\n',
    'M 100644 inline root.txt\ndata 2\n1\n\n',
    'commit refs/heads/main\ncommitter T <t@example.com> 1700000100 +0000\ndata 7\nsecond\nfrom :1\nM 100644 inline root.txt\ndata 2\n2\n\n',
  ];
  execFileSync('git', [`--git-dir=${bare}`, 'fast-import', '--quiet'], { input: commits.join('') });
}

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  bare = s.repoPath(ID);
  buildRepository();
  s.service.context.refs.invalidate(bare);
  second = bareGit('rev-parse', 'main').toString().trim();
  first = bareGit('rev-parse', 'main~1').toString().trim();
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

const readTree = (commit: string, path: string) => rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: commit, path });
const readBlob = (commit: string, path: string) =>
  collectStream<storage.ReadBlobResponse__Output>(s.client.ReadBlob({ repository_id: ID, commit_oid: commit, path, max_bytes: 0 }));

describe('ReadTree with a limit on a 100,000-entry directory', () => {
  it('when 1,000 entries are asked of it cold, then the first 1,000 records of git ls-tree and the count of all, and no listing kept', async () => {
    const { trees } = s.service.context.cache;
    const kept = trees.size;
    const res = await rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: first, path: 'wide', limit: 1000 });
    const whole = bareGit('ls-tree', '--long', '-z', `${first}:wide`);
    let end = 0;
    for (let i = 0; i < 1000; i++) end = whole.indexOf(0, end) + 1;
    expect([res.count, res.tree_oid, trees.size]).toEqual([WIDE + 1, bareGit('rev-parse', `${first}:wide`).toString().trim(), kept]);
    expect(Buffer.from(res.entries).equals(whole.subarray(0, end))).toBe(true);
  });
});

describe('ReadTree on a 100,000-entry directory', () => {
  it('when it is read, then the listing is complete and byte-identical to git ls-tree --long -z', async () => {
    const res = await readTree(first, 'wide');
    expect(res.count).toBe(WIDE + 1);
    expect(res.tree_oid).toBe(bareGit('rev-parse', `${first}:wide`).toString().trim());
    expect(Buffer.from(res.entries).equals(bareGit('ls-tree', '--long', '-z', `${first}:wide`))).toBe(true);
  });

  it('when the same tree is read under another commit, then it comes from the listing cache without starting git', async () => {
    const { trees } = s.service.context.cache;
    const misses = trees.misses;
    const spawned = gitProcessesStarted();
    const res = await readTree(second, 'wide');
    expect(trees.misses).toBe(misses);
    expect(gitProcessesStarted()).toBe(spawned);
    expect(res.count).toBe(WIDE + 1);
    expect(Buffer.from(res.entries).equals(bareGit('ls-tree', '--long', '-z', `${second}:wide`))).toBe(true);
  });

  it('when several callers read a cold tree at once, then one listing serves them all with identical bytes', async () => {
    const { trees } = s.service.context.cache;
    const misses = trees.misses;
    const answers = await Promise.all([1, 2, 3, 4].map(() => readTree(first, 'many')));
    expect(trees.misses).toBe(misses + 1);
    const expected = bareGit('ls-tree', '--long', '-z', `${first}:many`);
    for (const a of answers) expect(Buffer.from(a.entries).equals(expected)).toBe(true);
  });

  it('when files deep in the wide directory are read, then content and mode are exactly what git has, the directory read once', async () => {
    const { largeTrees } = s.service.context.cache;
    const misses = largeTrees.misses;
    for (const name of ['f000000', 'f050001', 'f099999', 'f000089']) {
      const msgs = await readBlob(first, `wide/${name}`);
      const lsTree = bareGit('ls-tree', first, '--', `wide/${name}`).toString();
      expect(msgs[0]).toMatchObject({ mode: lsTree.split(' ')[0], oid: bareGit('rev-parse', `${first}:wide/${name}`).toString().trim() });
      expect(Buffer.concat(msgs.map((c) => c.data)).equals(bareGit('cat-file', 'blob', `${first}:wide/${name}`))).toBe(true);
    }
    expect(largeTrees.misses).toBe(misses + 1);
  });
});

const readTreeStream = (commit: string, path: string, requireCommit = false) =>
  collectStream<storage.ReadTreeStreamResponse__Output>(s.client.ReadTreeStream({ repository_id: ID, commit_oid: commit, path, require_commit: requireCommit }));

// docs/decisions/big-pages.md#the-whole-tree-streamed
describe('ReadTreeStream on a 100,000-entry directory', () => {
  it('when it is read, then it comes in many pieces of whole records that join to ReadTree\'s bytes, the id and count in the first', async () => {
    const msgs = await readTreeStream(first, 'wide');
    expect(msgs.length).toBeGreaterThan(50);
    expect(msgs[0]).toMatchObject({ tree_oid: bareGit('rev-parse', `${first}:wide`).toString().trim(), count: WIDE + 1 });
    for (const m of msgs.slice(1)) expect(m).toMatchObject({ tree_oid: '', count: 0 });
    for (const m of msgs) expect(m.entries[m.entries.length - 1]).toBe(0);
    expect(Buffer.concat(msgs.map((m) => m.entries)).equals(bareGit('ls-tree', '--long', '-z', `${first}:wide`))).toBe(true);
  });

  it('when this read builds the listing, then its pieces are sent as they are built, the same bytes, and the listing is kept whole', async () => {
    const { trees } = s.service.context.cache;
    trees.deletePrefix('');
    const misses = trees.misses;
    const msgs = await readTreeStream(second, 'wide');
    expect(trees.misses).toBe(misses + 1);
    expect(msgs.length).toBeGreaterThan(50);
    expect(msgs[0]).toMatchObject({ count: WIDE + 1, tree_oid: bareGit('rev-parse', `${second}:wide`).toString().trim() });
    for (const m of msgs) expect(m.entries[m.entries.length - 1]).toBe(0);
    const expected = bareGit('ls-tree', '--long', '-z', `${second}:wide`);
    expect(Buffer.concat(msgs.map((m) => m.entries)).equals(expected)).toBe(true);
    const kept = await readTree(second, 'wide');
    expect(trees.misses).toBe(misses + 1);
    expect(Buffer.from(kept.entries).equals(expected)).toBe(true);
  });

  it('when the reader takes nothing while the listing is built, then the rest follows once it reads, the same bytes', async () => {
    s.service.context.cache.trees.deletePrefix('');
    const call = s.client.ReadTreeStream({ repository_id: ID, commit_oid: first, path: 'wide' });
    call.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const done = collectStream<storage.ReadTreeStreamResponse__Output>(call);
    call.resume();
    const msgs = await done;
    expect(msgs[0]).toMatchObject({ count: WIDE + 1 });
    expect(Buffer.concat(msgs.map((m) => m.entries)).equals(bareGit('ls-tree', '--long', '-z', `${first}:wide`))).toBe(true);
  });

  it('when a small tree is read, then it is one message with all of it', async () => {
    const msgs = await readTreeStream(second, '', true);
    expect(msgs).toHaveLength(1);
    expect(Buffer.from(msgs[0]!.entries).equals(bareGit('ls-tree', '--long', '-z', second))).toBe(true);
  });

  it('when the path is a file, missing, or the id names no commit, then the stream fails before any message as ReadTree does', async () => {
    await expect(readTreeStream(first, 'root.txt')).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: root.txt' });
    await expect(readTreeStream(first, 'nope')).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: nope' });
    const tree = bareGit('rev-parse', `${first}^{tree}`).toString().trim();
    await expect(readTreeStream(tree, '', true)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${tree}` });
    await expect(readTreeStream(first, '--output=x')).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('backslashes in file names', () => {
  it('when the root holds a\\b.txt, then ReadTree lists it as git does and ReadBlob reads it', async () => {
    const root = await readTree(first, '');
    expect(Buffer.from(root.entries).equals(bareGit('ls-tree', '--long', '-z', first))).toBe(true);
    expect(Buffer.from(root.entries).toString()).toContain('\ta\\b.txt\0');
    const msgs = await readBlob(first, 'a\\b.txt');
    expect(msgs[0]).toMatchObject({ mode: '100644', size: 10 });
    expect(Buffer.concat(msgs.map((c) => c.data)).toString()).toBe('backslash\n');
  });

  it('when a directory name has a backslash, then its tree and files are read by that name', async () => {
    const dir = await readTree(first, 'odd\\dir');
    expect(Buffer.from(dir.entries).equals(bareGit('ls-tree', '--long', '-z', `${first}:odd\\dir`))).toBe(true);
    const msgs = await readBlob(first, 'odd\\dir/x.txt');
    expect(Buffer.concat(msgs.map((c) => c.data)).toString()).toBe('x\n');
  });
});

describe('warm read paths', () => {
  const everyRead = async () => {
    await readTree(second, 'many');
    await readBlob(second, 'root.txt');
    await rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: second });
    await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: [] });
    await rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision: 'refs/heads/main' });
    return rpc(s.client, s.client.ListCommits, { repository_id: ID, commit_oid: second, limit: 100, offset: 0 });
  };

  it('when the same reads are repeated, then none of them starts a git process and the log page is unchanged', async () => {
    const before = await everyRead();
    const spawned = gitProcessesStarted();
    const again = await everyRead();
    expect(gitProcessesStarted()).toBe(spawned);
    expect(again.commits.map((c) => c.oid)).toEqual([second, first]);
    expect(again.commits.map((c) => Buffer.from(c.raw).toString('hex'))).toEqual(before.commits.map((c) => Buffer.from(c.raw).toString('hex')));
  });

  it('when a repository is removed and created again under the same id, then its old cached pages and listings are not served', async () => {
    const id = 'repo-recreated';
    await createTestRepository(s, id);
    execFileSync('git', [`--git-dir=${s.repoPath(id)}`, 'fetch', '-q', bare, 'main:refs/heads/main']);
    s.service.context.refs.invalidate(s.repoPath(id));
    const page = { repository_id: id, commit_oid: first, limit: 10, offset: 0 };
    expect((await rpc(s.client, s.client.ListCommits, page)).commits.map((c) => c.oid)).toEqual([first]);
    expect((await rpc(s.client, s.client.ReadTree, { repository_id: id, commit_oid: first, path: 'many' })).count).toBe(2000);
    await rpc(s.client, s.client.RemoveRepository, { repository_id: id });
    await createTestRepository(s, id);
    await expect(rpc(s.client, s.client.ListCommits, page)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${first}` });
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: id, commit_oid: first, path: 'many' })).rejects.toMatchObject({
      kind: 'not_found',
      message: `Commit not found: ${first}`,
    });
  });
});
