import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, symlink } from 'node:fs/promises';
import path from 'node:path';
import { collectStream } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, pushTo, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-reads';
let s: TestStorage;
let work: string;
let bare: string;
let head: string;
let first: string;
const big = Buffer.alloc(300 * 1024, 'x');

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  bare = s.repoPath(ID);
  work = await makeWorkdir();
  await writeFiles(work, { 'README.md': '# hello\n', 'src/a.txt': 'a\n', 'src/deep/b.txt': 'b\n', 'name with space.txt': 'sp\n' });
  first = await commitAll(work, 'first\n', { date: '2024-01-02T03:04:05+01:00' });
  await writeFiles(work, { 'bin.dat': Buffer.from([0, 1, 2, 3, 0, 255]), 'big.txt': big, 'run.sh': '#!/bin/sh\n' });
  await chmod(path.join(work, 'run.sh'), 0o755);
  await symlink('README.md', path.join(work, 'link'));
  // An embedded repository becomes a submodule entry (mode 160000) whose commit is not ours.
  await writeFiles(work, { 'sub/inner.txt': 'inner\n' });
  await git(path.join(work, 'sub'), 'init', '-q');
  await commitAll(path.join(work, 'sub'), 'inner');
  head = await commitAll(work, 'second');
  await git(work, 'tag', '-a', 'v1', '-m', 'release v1');
  await git(work, 'tag', 'light', first);
  await pushTo(s, ID, work, 'main', 'v1', 'light');
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${bare}`, ...args]);

describe('ListRefs and ResolveRevision', () => {
  it('when refs are listed, then they match git for-each-ref with annotated tags peeled', async () => {
    const res = await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: [] });
    const expected = bareGit('for-each-ref', '--format=%(refname) %(objectname) %(*objectname)').toString().trim().split('\n');
    expect(res.refs.map((r) => `${r.name} ${r.target} ${r.peeled}`)).toEqual(expected);
    expect(res.refs.find((r) => r.name === 'refs/tags/v1')!.peeled).toBe(head);
  });

  it('when only refs/heads/ is asked for, then tags are left out', async () => {
    const res = await rpc(s.client, s.client.ListRefs, { repository_id: ID, prefixes: ['refs/heads/'] });
    expect(res.refs).toEqual([{ name: 'refs/heads/main', target: head, peeled: '' }]);
  });

  it('when a branch, an annotated tag and an abbreviated id are resolved, then each gives its commit', async () => {
    const resolve = (revision: string) => rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision });
    expect((await resolve('refs/heads/main')).oid).toBe(head);
    expect((await resolve('refs/tags/v1')).oid).toBe(head);
    expect((await resolve('refs/tags/light')).oid).toBe(first);
    expect((await resolve(first.slice(0, 8))).oid).toBe(first);
  });

  it('when an unknown ref is resolved, then NOT_FOUND says which', async () => {
    await expect(rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision: 'refs/heads/nope' })).rejects.toMatchObject({ kind: 'not_found', message: 'Ref not found: refs/heads/nope' });
  });

  it('when the repository does not exist, then NOT_FOUND Repository not found', async () => {
    await expect(rpc(s.client, s.client.ListRefs, { repository_id: 'nope', prefixes: [] })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });
});

describe('ReadTree', () => {
  it('when the root is read, then the bytes equal git ls-tree --long -z', async () => {
    const res = await rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: head, path: '' });
    expect(Buffer.from(res.entries).toString('utf8')).toBe(bareGit('ls-tree', '--long', '-z', head).toString('utf8'));
    expect(res.tree_oid).toBe(bareGit('rev-parse', `${head}^{tree}`).toString().trim());
    expect(res.count).toBe(8);
    expect(Buffer.from(res.entries).toString()).toMatch(/160000 commit [0-9a-f]{40} {7}-\tsub\0/);
  });

  it('when a subdirectory is read, then it equals git ls-tree of that directory', async () => {
    const res = await rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: head, path: 'src' });
    expect(Buffer.from(res.entries).toString('utf8')).toBe(bareGit('ls-tree', '--long', '-z', `${head}:src`).toString('utf8'));
    expect(res.count).toBe(2);
  });

  it('when the path is a file, then INVALID_ARGUMENT Not a directory', async () => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: head, path: 'README.md' })).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: README.md' });
  });

  it('when the path does not exist, then NOT_FOUND Path not found', async () => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: head, path: 'nope/x' })).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: nope/x' });
  });

  it('when the path is a submodule, then INVALID_ARGUMENT Not a directory', async () => {
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: head, path: 'sub' })).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: sub' });
  });

  it('when the commit does not exist, then NOT_FOUND Commit not found', async () => {
    const missing = 'f'.repeat(40);
    await expect(rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: missing, path: '' })).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${missing}` });
  });
});

describe('ReadTree with a limit', () => {
  const records = (spec: string) => bareGit('ls-tree', '--long', '-z', spec).toString('utf8').split('\0').filter(Boolean).map((r) => `${r}\0`);
  const tree = (path: string, limit: number, require_commit = false, commit_oid = head) => rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid, path, limit, require_commit });

  it('when the root (trees, blobs, a symlink and a submodule) is read with a limit, then its first limit records and the count of all', async () => {
    const all = records(head);
    for (const limit of [1, 3, 7]) {
      const res = await tree('', limit);
      expect([limit, Buffer.from(res.entries).toString('utf8'), res.count, res.tree_oid]).toEqual([limit, all.slice(0, limit).join(''), 8, bareGit('rev-parse', `${head}^{tree}`).toString().trim()]);
    }
  });

  it('when the limit is larger than the tree, then the whole listing, as without a limit', async () => {
    for (const limit of [8, 9, 1000, 0xffffffff]) expect([limit, await tree('src', limit)]).toEqual([limit, await tree('src', 0)]);
  });

  it('when require_commit is asked with a limit, then a commit reads and an annotated tag is Commit not found', async () => {
    expect(Buffer.from((await tree('', 2, true)).entries).toString('utf8')).toBe(records(head).slice(0, 2).join(''));
    const tagId = bareGit('rev-parse', 'refs/tags/v1').toString().trim();
    await expect(tree('', 2, true, tagId)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${tagId}` });
  });

  it('when the path is a file, a submodule or missing, then the refusals of a read without a limit', async () => {
    await expect(tree('README.md', 1)).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: README.md' });
    await expect(tree('sub', 1)).rejects.toMatchObject({ kind: 'validation', message: 'Not a directory: sub' });
    await expect(tree('nope/x', 1)).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: nope/x' });
  });
});

/** A ReadBlob answer's content: the data of every message, the header's included. */
const content = (msgs: storage.ReadBlobResponse__Output[]) => Buffer.concat(msgs.map((m) => m.data));

describe('ReadBlob', () => {
  const read = (p: string, max_bytes = 0) => collectStream<storage.ReadBlobResponse__Output>(s.client.ReadBlob({ repository_id: ID, commit_oid: head, path: p, max_bytes }));

  it('when a small file is read, then the header and content match git cat-file', async () => {
    const msgs = await read('src/deep/b.txt');
    expect(msgs[0]).toMatchObject({ oid: bareGit('rev-parse', `${head}:src/deep/b.txt`).toString().trim(), size: 2, mode: '100644' });
    expect(content(msgs).toString()).toBe('b\n');
    // A blob of one chunk or less comes whole with its header.
    expect(msgs).toHaveLength(1);
  });

  it('when a 300 KiB file is read, then it arrives in chunks of at most 64 KiB with the exact bytes', async () => {
    const [header, ...chunks] = await read('big.txt');
    expect(header!.size).toBe(big.length);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    for (const c of chunks) expect(c.data.length).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.concat(chunks.map((c) => c.data)).equals(big)).toBe(true);
  });

  it('when the file is larger than max_bytes, then only the header comes, flagged too_large', async () => {
    const msgs = await read('big.txt', 1000);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({ size: big.length, too_large: true });
  });

  it('when a symlink and an executable are read, then their modes and the link target come back', async () => {
    const link = await read('link');
    expect(link[0]!.mode).toBe('120000');
    expect(content(link).toString()).toBe('README.md');
    expect((await read('run.sh'))[0]!.mode).toBe('100755');
  });

  it('when binary content is read, then the bytes are exact', async () => {
    expect([...content(await read('bin.dat'))]).toEqual([0, 1, 2, 3, 0, 255]);
  });

  it('when the path is a directory, then INVALID_ARGUMENT Not a file', async () => {
    await expect(read('src')).rejects.toMatchObject({ kind: 'validation', message: 'Not a file: src' });
  });

  it('when the caller cancels mid-blob, then the half-read cat-file process is dropped and later reads stay correct', async () => {
    const pool = s.service.context.pool;
    const huge = Buffer.alloc(4 * 1024 * 1024, 'h');
    await writeFiles(work, { 'huge.txt': huge });
    const c = await commitAll(work, 'huge');
    await pushTo(s, ID, work, 'main');
    const stream = s.client.ReadBlob({ repository_id: ID, commit_oid: c, path: 'huge.txt', max_bytes: 0 });
    const got = await new Promise<number>((resolve) => {
      let n = 0;
      stream.on('data', () => {
        if (++n === 2) {
          stream.cancel();
          resolve(n);
        }
      });
    });
    stream.on('error', () => undefined);
    expect(got).toBe(2);
    // The cancelled reader's process must not come back half-read: the next answers are exact.
    await new Promise((r) => setTimeout(r, 50));
    expect(pool.size).toBe(pool.idleCount(bare));
    expect(content(await read('src/deep/b.txt')).toString()).toBe('b\n');
    const [header] = await read('README.md');
    expect(header!.size).toBe(8);
  });

  it('when the path is a submodule, then INVALID_ARGUMENT Not a file', async () => {
    await expect(read('sub')).rejects.toMatchObject({ kind: 'validation', message: 'Not a file: sub' });
  });

  it('when the path does not exist, then NOT_FOUND', async () => {
    await expect(read('src/zzz.txt')).rejects.toMatchObject({ kind: 'not_found', message: 'Path not found: src/zzz.txt' });
  });
});

describe('ReadTree and ReadBlob with require_commit', () => {
  const tree = (commit_oid: string, require_commit: boolean) => rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid, path: 'src', require_commit });
  const blob = (commit_oid: string, require_commit: boolean) => collectStream<storage.ReadBlobResponse__Output>(s.client.ReadBlob({ repository_id: ID, commit_oid, path: 'src/a.txt', max_bytes: 0, require_commit }));
  const tagId = () => bareGit('rev-parse', 'refs/tags/v1').toString().trim();
  const rootTree = () => bareGit('rev-parse', `${head}^{tree}`).toString().trim();

  it('when the id is a commit, then the answer is the one without require_commit', async () => {
    expect(await tree(head, true)).toEqual(await tree(head, false));
    expect(await blob(head, true)).toEqual(await blob(head, false));
  });

  it('when the id is an annotated tag or a tree, then NOT_FOUND Commit not found, though git would peel them', async () => {
    for (const id of [tagId(), rootTree()]) {
      // Without the flag each reads through to the commit's or tree's content, as before.
      expect((await tree(id, false)).count).toBe(2);
      await expect(tree(id, true)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${id}` });
      await expect(blob(id, true)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${id}` });
    }
  });

  it('when refused, then the cat-file process stays in step and the next reads are exact', async () => {
    const missing = 'f'.repeat(40);
    await expect(tree(missing, true)).rejects.toMatchObject({ kind: 'not_found', message: `Commit not found: ${missing}` });
    await expect(blob(rootTree(), true)).rejects.toMatchObject({ kind: 'not_found' });
    const msgs = await blob(head, true);
    expect(msgs[0]!.oid).toBe(bareGit('rev-parse', `${head}:src/a.txt`).toString().trim());
    expect(content(msgs).toString()).toBe('a\n');
    expect(Buffer.from((await tree(head, true)).entries).toString()).toBe(bareGit('ls-tree', '--long', '-z', `${head}:src`).toString());
  });
});

describe('ReadCommit and ListCommits', () => {
  it('when a commit is read by abbreviated id, then the raw object equals git cat-file commit', async () => {
    const res = await rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: first.slice(0, 10) });
    expect(res.commit!.oid).toBe(first);
    expect(Buffer.from(res.commit!.raw).equals(bareGit('cat-file', 'commit', first))).toBe(true);
  });

  it('when an unknown commit is read, then NOT_FOUND Commit not found', async () => {
    await expect(rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: 'abcdef12' })).rejects.toMatchObject({ kind: 'not_found', message: 'Commit not found: abcdef12' });
  });

  it('when the log is listed, then it follows git rev-list order and honours limit and offset', async () => {
    const all = await rpc(s.client, s.client.ListCommits, { repository_id: ID, commit_oid: head, limit: 10, offset: 0 });
    expect(all.commits.map((c) => c.oid)).toEqual(bareGit('rev-list', head).toString().trim().split('\n'));
    const page = await rpc(s.client, s.client.ListCommits, { repository_id: ID, commit_oid: head, limit: 1, offset: 1 });
    expect(page.commits.map((c) => c.oid)).toEqual([first]);
    expect(Buffer.from(page.commits[0]!.raw).equals(bareGit('cat-file', 'commit', first))).toBe(true);
  });
});

describe('after a push', () => {
  it('when new commits arrive, then the warm cat-file processes and the ref cache both see them', async () => {
    const tip = (await git(work, 'rev-parse', 'HEAD')).trim();
    await rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: tip });
    expect((await rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision: 'refs/heads/main' })).oid).toBe(tip);
    await writeFiles(work, { 'later.txt': 'later\n' });
    const later = await commitAll(work, 'later');
    await pushTo(s, ID, work, 'main');
    expect((await rpc(s.client, s.client.ResolveRevision, { repository_id: ID, revision: 'refs/heads/main' })).oid).toBe(later);
    expect((await rpc(s.client, s.client.ReadCommit, { repository_id: ID, revision: later })).commit!.oid).toBe(later);
    const tree = await rpc(s.client, s.client.ReadTree, { repository_id: ID, commit_oid: later, path: '' });
    expect(Buffer.from(tree.entries).toString()).toContain('\tlater.txt\0');
  });
});
