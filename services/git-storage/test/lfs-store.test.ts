import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppError } from '@githost/errors';
import { DiskObjectStore } from '../src/lfs/disk-object-store.js';
import { LockStore } from '../src/lfs/lock-store.js';
import { repositoryPath } from '../src/repository-path.js';

/** The LFS object store on disk (docs/decisions/lfs.md): checked, atomic, per repository. */

let dataDir: string;
let store: DiskObjectStore;
const REPO = 'repo-lfs';
const oidOf = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A body that arrives in many chunks, as from a socket. */
const chunked = (b: Buffer, size = 64 * 1024) => Readable.from((function* () { for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size); })());
const temporaries = () => readdir(path.join(dataDir, 'lfs', 'tmp'));
const refusal = (p: Promise<unknown>) => p.then(() => 'stored', (err: unknown) => (err instanceof AppError ? [err.kind, err.message] : err));

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'githost-lfs-'));
  store = new DiskObjectStore(dataDir);
  await store.recover();
});

afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('LFS disk object store', () => {
  it('when the content matches its oid and size, then it is stored for that repository only and read back whole', async () => {
    const content = randomBytes(3 * 1024 * 1024 + 17);
    const oid = oidOf(content);
    await store.write(REPO, oid, content.length, chunked(content));
    expect(await store.size(REPO, oid)).toBe(content.length);
    expect(await store.size('another-repo', oid)).toBeUndefined();
    const read = await store.read(REPO, oid);
    const chunks: Buffer[] = [];
    for await (const c of read!.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(await store.usage(REPO)).toBe(content.length);
    expect(await temporaries()).toEqual([]);
  });

  it('when an object is empty or exactly one read buffer long, then it is read back whole', async () => {
    for (const content of [Buffer.alloc(0), randomBytes(1024 * 1024)]) {
      const oid = oidOf(content);
      await store.write(REPO, oid, content.length, chunked(content));
      const read = await store.read(REPO, oid);
      const chunks: Buffer[] = [];
      for await (const c of read!.body) chunks.push(c as Buffer);
      expect([read!.size, Buffer.concat(chunks).equals(content)]).toEqual([content.length, true]);
    }
  });

  it('when the temporary folder was removed while running, then the next upload makes it again and is stored', async () => {
    await rm(path.join(dataDir, 'lfs', 'tmp'), { recursive: true });
    const content = randomBytes(100_000);
    await store.write(REPO, oidOf(content), content.length, chunked(content));
    expect(await store.size(REPO, oidOf(content))).toBe(content.length);
    expect(await temporaries()).toEqual([]);
  });

  it('when the content does not match its oid, then nothing is stored and no temporary file is left', async () => {
    const oid = oidOf(Buffer.from('what was announced'));
    expect(await refusal(store.write(REPO, oid, 18, chunked(Buffer.from('what was sent here'))))).toEqual(['validation', 'The uploaded content does not match its oid (sha256)']);
    expect(await store.size(REPO, oid)).toBeUndefined();
    expect(await temporaries()).toEqual([]);
  });

  it('when an upload is shorter or longer than its size, then nothing is stored', async () => {
    const content = randomBytes(200_000);
    const oid = oidOf(content);
    expect(await refusal(store.write(REPO, oid, content.length, chunked(content.subarray(0, 150_000))))).toEqual(['validation', `The upload has 150000 bytes, not the ${content.length} announced`]);
    expect(await refusal(store.write(REPO, oid, 100_000, chunked(content)))).toEqual(['validation', 'The upload is larger than the 100000 bytes announced']);
    expect(await store.size(REPO, oid)).toBeUndefined();
    expect(await temporaries()).toEqual([]);
  });

  it('when the body fails mid-stream (the client went away), then nothing is stored and no temporary file is left', async () => {
    const content = randomBytes(300_000);
    const body = new Readable({ read() {} });
    const writing = refusal(store.write(REPO, oidOf(content), content.length, body));
    body.push(content.subarray(0, 100_000));
    // Once the store reads the body (its temporary file open), the client goes away. A fixed wait
    // raced the file's opening on a loaded machine: an error with nobody listening yet (an HTTP
    // request's body emits none then).
    await new Promise((r) => body.once('resume', r));
    await new Promise((r) => setTimeout(r, 20));
    body.destroy(new Error('aborted'));
    expect(await writing).toEqual(new Error('aborted'));
    expect(await store.size(REPO, oidOf(content))).toBeUndefined();
    expect(await temporaries()).toEqual([]);
  });

  it('when two uploads of the same oid run at once, then both succeed and the object is stored once', async () => {
    const content = randomBytes(2 * 1024 * 1024);
    const oid = oidOf(content);
    await Promise.all([store.write(REPO, oid, content.length, chunked(content, 4096)), store.write(REPO, oid, content.length, chunked(content, 8192))]);
    const dir = path.join(store.repositoryDir(REPO), oid.slice(0, 2), oid.slice(2, 4));
    expect(await readdir(dir)).toEqual([oid]);
    expect(await store.size(REPO, oid)).toBe(content.length);
    expect(await temporaries()).toEqual([]);
  });
});

describe('LFS deletion and start-up recovery (docs/decisions/lfs.md#deletion)', () => {
  /** A repository whose git directory exists, holding one object. */
  async function repositoryWithObject(id: string, withGitDir: boolean): Promise<string> {
    if (withGitDir) await mkdir(repositoryPath(dataDir, id), { recursive: true });
    const content = randomBytes(1000);
    await store.write(id, oidOf(content), content.length, chunked(content));
    return oidOf(content);
  }

  it('when a repository is removed, then its folder goes whole and another repository keeps its own copy of the same object', async () => {
    const content = randomBytes(5000);
    const oid = oidOf(content);
    await store.write('repo-gone', oid, content.length, chunked(content));
    await store.write('repo-stays', oid, content.length, chunked(content));
    await store.removeRepository('repo-gone');
    await store.removeRepository('repo-gone'); // idempotent
    expect(await store.size('repo-gone', oid)).toBeUndefined();
    expect(await store.size('repo-stays', oid)).toBe(content.length);
    expect(await readdir(path.join(dataDir, 'lfs', 'deleted'))).toEqual([]);
  });

  it('when a removal or a write was killed half way, then the next start finishes it: nothing renamed aside, no temporary file, no folder of a repository whose git directory is gone', async () => {
    const kept = await repositoryWithObject('repo-alive', true);
    const orphan = await repositoryWithObject('repo-git-dir-removed', false);
    // What a kill leaves: a folder renamed aside but not yet deleted, and a write's temporary file.
    await mkdir(path.join(dataDir, 'lfs', 'deleted', `${'a'.repeat(64)}.0123456789ab`, 'aa', 'bb'), { recursive: true });
    await writeFile(path.join(dataDir, 'lfs', 'tmp', `${kept}.0011223344556677`), 'partial');
    await new DiskObjectStore(dataDir).recover();
    expect(await store.size('repo-alive', kept)).toBe(1000);
    expect(await store.size('repo-git-dir-removed', orphan)).toBeUndefined();
    expect(await readdir(path.join(dataDir, 'lfs', 'deleted'))).toEqual([]);
    expect(await temporaries()).toEqual([]);
  });
});

describe('LFS lock store', () => {
  it('when a path is locked, then a second lock on it is a conflict naming the first; only its owner, or an admin with force, removes it', async () => {
    const locks = new LockStore((id) => store.repositoryDir(id));
    const lock = await locks.create(REPO, 'assets/a.psd', 'alice');
    const second = await locks.create(REPO, 'assets/a.psd', 'bob').catch((err: AppError) => [err.kind, err.details]);
    expect(second).toEqual(['conflict', { lock }]);
    expect(await refusal(locks.remove(REPO, lock.id, 'bob', false, false))).toEqual(['forbidden', 'The lock is owned by alice; only a repository admin can remove it, with force']);
    expect(await refusal(locks.remove(REPO, lock.id, 'bob', true, false))).toEqual(['forbidden', "Only a repository admin can remove another user's lock"]);
    expect(await locks.remove(REPO, lock.id, 'carol', true, true)).toEqual(lock);
    expect(await new LockStore((id) => store.repositoryDir(id)).list(REPO)).toEqual([]);
  });

  it('when many locks are taken at once, then each is kept (changes are serialized per repository)', async () => {
    const locks = new LockStore((id) => store.repositoryDir(id));
    await Promise.all(Array.from({ length: 20 }, (_, i) => locks.create('repo-many', `f${i}.bin`, 'alice')));
    expect((await new LockStore((id) => store.repositoryDir(id)).list('repo-many')).length).toBe(20);
  });
});
