import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { validation } from '@githost/errors';
import { repositoryHash, repositoryPathOfHash } from '../repository-path.js';
import { makeDirectoryDurably, syncDirectory } from './durable-directory.js';
import type { LfsObjectStore } from './object-store.js';

const lfsRoot = (dataDir: string) => path.join(path.resolve(dataDir), 'lfs');

/** One repository's LFS folder: its objects and its locks. */
export function lfsRepositoryDir(dataDir: string, repositoryId: string): string {
  return path.join(lfsRoot(dataDir), repositoryHash(repositoryId));
}

/** A repository's LFS folder name: its hash (repositoryHash). */
const REPOSITORY_FOLDER = /^[0-9a-f]{64}$/;

/**
 * The buffer an object streams through, each way. node's defaults (16 KiB for a file write
 * stream, 64 KiB for a read stream) cost a callback and a syscall per socket-sized chunk; 1 MiB
 * lets a write gather the chunks that arrived meanwhile into one writev and a read hand the
 * socket 1 MiB at a time: about half the CPU per byte in both directions (measured, bench/RESULTS.md),
 * and memory still bounded per transfer, not by object size.
 */
const STREAM_BUFFER_BYTES = 1024 * 1024;

/** A write that got more bytes than the batch announced, stopped before it fills the disk. */
class TooManyBytes extends Error {}

/**
 * LFS objects on the shard's disk: `DATA_DIR/lfs/<repository hash>/<oid[0:2]>/<oid[2:4]>/<oid>`.
 * Each object belongs to the repository whose folder holds it (docs/decisions/lfs.md). A write
 * streams into `DATA_DIR/lfs/tmp`, is checked (sha256, size), fsynced and renamed in whole, so
 * memory stays flat and a killed write leaves only a temporary file, which `recover` clears at
 * the next start. A deleted repository's folder is renamed into `DATA_DIR/lfs/deleted` in one
 * step, then deleted; `recover` finishes what a kill interrupted.
 */
export class DiskObjectStore implements LfsObjectStore {
  private readonly tmp: string;
  private readonly deleted: string;

  constructor(private readonly dataDir: string) {
    this.tmp = path.join(lfsRoot(dataDir), 'tmp');
    this.deleted = path.join(lfsRoot(dataDir), 'deleted');
  }

  /**
   * At start, before any write: what a killed write left behind (temporary files), what a killed
   * deletion left behind (folders renamed aside, and the folder of a repository whose git
   * directory was removed before the kill reached its objects).
   */
  async recover(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
    await rm(this.deleted, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    let folders: string[];
    try {
      folders = await readdir(lfsRoot(this.dataDir));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const h of folders) {
      if (!REPOSITORY_FOLDER.test(h)) continue;
      const gitDir = await stat(repositoryPathOfHash(this.dataDir, h)).catch(() => undefined);
      if (!gitDir) await this.removeFolder(path.join(lfsRoot(this.dataDir), h));
    }
  }

  async removeRepository(repositoryId: string): Promise<void> {
    await this.removeFolder(this.repositoryDir(repositoryId));
  }

  /** Renamed aside first, so no repository ever reads a half-deleted folder. */
  private async removeFolder(dir: string): Promise<void> {
    await mkdir(this.deleted, { recursive: true, mode: 0o700 });
    const aside = path.join(this.deleted, `${path.basename(dir)}.${randomBytes(6).toString('hex')}`);
    try {
      await rename(dir, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await rm(aside, { recursive: true, force: true });
  }

  repositoryDir(repositoryId: string): string {
    return lfsRepositoryDir(this.dataDir, repositoryId);
  }

  private objectPath(repositoryId: string, oid: string): string {
    return path.join(this.repositoryDir(repositoryId), oid.slice(0, 2), oid.slice(2, 4), oid);
  }

  async size(repositoryId: string, oid: string): Promise<number | undefined> {
    try {
      return (await stat(this.objectPath(repositoryId, oid))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async read(repositoryId: string, oid: string): Promise<{ size: number; body: Readable } | undefined> {
    const file = this.objectPath(repositoryId, oid);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const { size } = await handle.stat();
      // Bounded by the size just read (an object never changes once renamed into place): the
      // stream ends after its last byte without one more read, and one more 1 MiB buffer, to
      // find the end of the file (docs/decisions/lfs.md#throughput). `end` is inclusive, so an
      // empty object reads to the end of its file instead.
      const range = size > 0 ? { start: 0, end: size - 1 } : {};
      return { size, body: handle.createReadStream({ highWaterMark: STREAM_BUFFER_BYTES, ...range }) };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async write(repositoryId: string, oid: string, size: number, body: Readable): Promise<void> {
    const temp = path.join(this.tmp, `${oid}.${randomBytes(8).toString('hex')}`);
    const handle = await this.openTemporary(temp);
    const hash = createHash('sha256');
    let received = 0;
    const check = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        if (received > size) return done(new TooManyBytes());
        hash.update(chunk);
        done(null, chunk);
      },
    });
    let renamed = false;
    try {
      // `flush`: fsynced by the stream before it closes, not reopened for it (fewer round trips
      // per object, which is what 1 MiB objects wait on).
      const out = handle.createWriteStream({ highWaterMark: STREAM_BUFFER_BYTES, flush: true });
      try {
        await pipeline(body, check, out);
      } catch (err) {
        if (err instanceof TooManyBytes) throw validation(`The upload is larger than the ${size} bytes announced`);
        throw err;
      }
      if (received !== size) throw validation(`The upload has ${received} bytes, not the ${size} announced`);
      if (hash.digest('hex') !== oid) throw validation('The uploaded content does not match its oid (sha256)');
      const final = this.objectPath(repositoryId, oid);
      await makeDirectoryDurably(path.dirname(final));
      // Two uploads of one oid carry the same bytes: whichever renames last replaces an identical file.
      await rename(temp, final);
      renamed = true;
      await syncDirectory(path.dirname(final));
    } finally {
      if (!renamed) await rm(temp, { force: true });
    }
  }

  /** `tmp` is made at start (`recover`); made again only when something removed it since, so an
   *  upload costs no `mkdir` (docs/decisions/lfs.md#throughput). */
  private async openTemporary(temp: string): Promise<FileHandle> {
    try {
      return await open(temp, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(this.tmp, { recursive: true, mode: 0o700 });
      return open(temp, 'wx', 0o600);
    }
  }

  async usage(repositoryId: string): Promise<number> {
    return directoryBytes(this.repositoryDir(repositoryId));
  }
}

/** Bytes of the regular files under `dir` (0 when it does not exist). */
export async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let total = 0;
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += await directoryBytes(p);
    else if (e.isFile()) total += (await stat(p).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
