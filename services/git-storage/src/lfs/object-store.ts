import type { Readable } from 'node:stream';

/** A git-lfs object id (git-lfs docs/spec.md "The pointer"): one definition, with the pointer parser. */
export { LFS_OID } from '@githost/git-records/lfs-pointer';

/**
 * Where LFS objects live, per repository (docs/decisions/lfs.md). The disk store is the only one
 * today; an S3-compatible store implements the same five calls (docs/operating.md#running-on-kubernetes).
 */
export interface LfsObjectStore {
  /** The stored object's size, or undefined when this repository holds no such object. */
  size(repositoryId: string, oid: string): Promise<number | undefined>;
  /**
   * Stores `body` as `oid` of this repository once its sha256 is `oid` and it has exactly `size`
   * bytes; otherwise stores nothing and rejects with a validation error. Atomic: a reader sees
   * the whole object or none.
   */
  write(repositoryId: string, oid: string, size: number, body: Readable): Promise<void>;
  /** The object's content, or undefined when this repository holds no such object. */
  read(repositoryId: string, oid: string): Promise<{ size: number; body: Readable } | undefined>;
  /** Bytes of LFS objects this repository holds (counted towards REPOSITORY_QUOTA_BYTES). */
  usage(repositoryId: string): Promise<number>;
  /**
   * Removes every object of a repository that is being deleted (each repository holds its own
   * copies, docs/decisions/lfs.md#deletion). Idempotent; a removal cut short by a crash is
   * finished at the next start, never left half done where a repository could read it.
   */
  removeRepository(repositoryId: string): Promise<void>;
}
