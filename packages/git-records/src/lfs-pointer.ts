/**
 * Git LFS pointer files (git-lfs docs/spec.md "The pointer"): the one parser browse, the web and
 * git-storage share. Kept apart from the rest of git-records (no gRPC), like `object-id`.
 */

/** git-lfs writes pointers well under this and never reads a larger blob as one (spec.md: "< 1024 bytes"). */
export const LFS_POINTER_MAX_BYTES = 1024;

/** A git-lfs object id: sha256 of the content, lower-case hex. */
export const LFS_OID = /^[0-9a-f]{64}$/;

/** The spec's version line; `hawser` is the name git-lfs had before 1.0 and still reads. */
const VERSIONS = new Set(['https://git-lfs.github.com/spec/v1', 'https://hawser.github.com/spec/v1']);
const KEY = /^[a-z0-9.-]+$/;

export interface LfsPointer {
  /** sha256 of the object's content, lower-case hex. */
  oid: string;
  /** The object's size in bytes. */
  size: number;
}

/**
 * The pointer `blob` is, or undefined when it is not a valid one: at most 1024 bytes of UTF-8
 * `key value\n` lines, `version` first and the other keys sorted, with `oid sha256:<64 hex>` and
 * `size <n>` (spec.md "The pointer").
 */
export function parseLfsPointer(blob: Uint8Array): LfsPointer | undefined {
  if (blob.length === 0 || blob.length > LFS_POINTER_MAX_BYTES) return undefined;
  const text = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString('utf8');
  if (!text.endsWith('\n') || text.includes('\r') || text.includes('\0')) return undefined;
  const lines = text.slice(0, -1).split('\n');
  const fields = new Map<string, string>();
  let previous = '';
  for (const [i, line] of lines.entries()) {
    const space = line.indexOf(' ');
    if (space <= 0) return undefined;
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (!KEY.test(key) || value === '') return undefined;
    if (i === 0 ? key !== 'version' || !VERSIONS.has(value) : key <= previous || key === 'version') return undefined;
    if (i > 0) previous = key;
    fields.set(key, value);
  }
  const oid = /^sha256:([0-9a-f]{64})$/.exec(fields.get('oid') ?? '')?.[1];
  const sizeText = fields.get('size') ?? '';
  const size = /^\d{1,16}$/.test(sizeText) ? Number(sizeText) : Number.NaN;
  if (oid === undefined || !Number.isSafeInteger(size)) return undefined;
  return { oid, size };
}
