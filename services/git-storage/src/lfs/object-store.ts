import type { Readable } from 'node:stream';

/** A git-lfs object id: sha256 of the content, lowercase hex (git-lfs docs/spec.md "The pointer"). */
export const LFS_OID = /^[0-9a-f]{64}$/;

/**
 * Where LFS objects live, per repository (docs/decisions/lfs.md). The disk store is the only one
 * today; an S3-compatible store implements the same four calls (docs/operating.md#running-on-kubernetes).
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
}
