import { randomUUID } from 'node:crypto';
import { open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { conflict, forbidden, notFound } from '@githost/errors';
import { makeDirectoryDurably, syncDirectory } from './durable-directory.js';

/** git-lfs docs/api/locking.md: a lock as the API answers it. */
export interface LfsLock {
  id: string;
  path: string;
  locked_at: string;
  owner: { name: string };
}

/**
 * LFS file locks, one small JSON file per repository beside its objects
 * (`DATA_DIR/lfs/<repository hash>/locks.json`), written to a temporary file, fsynced and renamed,
 * one change at a time per repository (docs/decisions/lfs.md: git-storage has no database, and
 * the locks live and move with the repository's shard).
 */
export class LockStore {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly repositoryDir: (repositoryId: string) => string) {}

  list(repositoryId: string): Promise<LfsLock[]> {
    return this.load(repositoryId);
  }

  /** A second lock on one path is refused with the lock that holds it (locking.md "Create Lock" 409). */
  create(repositoryId: string, lockPath: string, owner: string): Promise<LfsLock> {
    return this.change(repositoryId, (locks) => {
      const held = locks.find((l) => l.path === lockPath);
      if (held) throw conflict('already created lock', { lock: held });
      const lock: LfsLock = { id: randomUUID(), path: lockPath, locked_at: new Date().toISOString(), owner: { name: owner } };
      return { locks: [...locks, lock], result: lock };
    });
  }

  /** Only the lock's owner removes it, or a repository admin with `force` (locking.md "Delete Lock"). */
  remove(repositoryId: string, id: string, caller: string, force: boolean, isAdmin: boolean): Promise<LfsLock> {
    return this.change(repositoryId, (locks) => {
      const lock = locks.find((l) => l.id === id);
      if (!lock) throw notFound('Lock not found');
      if (lock.owner.name !== caller) {
        if (!force) throw forbidden(`The lock is owned by ${lock.owner.name}; only a repository admin can remove it, with force`);
        if (!isAdmin) throw forbidden('Only a repository admin can remove another user\'s lock');
      }
      return { locks: locks.filter((l) => l !== lock), result: lock };
    });
  }

  private file(repositoryId: string): string {
    return path.join(this.repositoryDir(repositoryId), 'locks.json');
  }

  private async load(repositoryId: string): Promise<LfsLock[]> {
    try {
      return JSON.parse(await readFile(this.file(repositoryId), 'utf8')) as LfsLock[];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  private change<T>(repositoryId: string, apply: (locks: LfsLock[]) => { locks: LfsLock[]; result: T }): Promise<T> {
    const previous = this.queues.get(repositoryId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(async () => {
      const { locks, result } = apply(await this.load(repositoryId));
      const file = this.file(repositoryId);
      await makeDirectoryDurably(path.dirname(file));
      const temp = `${file}.${randomUUID()}.tmp`;
      const handle = await open(temp, 'w', 0o600);
      try {
        await handle.writeFile(JSON.stringify(locks));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
      await syncDirectory(path.dirname(file));
      return result;
    });
    this.queues.set(repositoryId, next);
    void next.finally(() => {
      if (this.queues.get(repositoryId) === next) this.queues.delete(repositoryId);
    }).catch(() => {});
    return next;
  }
}
