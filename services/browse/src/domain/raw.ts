import { classifyBlob, rawContentType, TEXT_SNIFF_BYTES } from './blob.js';
import type { BlobStream } from './ports.js';

/** What raw serves for a Git LFS pointer (docs/decisions/lfs.md#display). */
export interface LfsServed {
  oid: string;
  /** true: the bytes are the object's; false: this repository lacks it, the bytes are the pointer's. */
  stored: boolean;
}

export interface RawBlob {
  size: number;
  contentType: string;
  /** The bytes read to classify the content; send them first. */
  head: Buffer;
  /** The remaining bytes, in order. */
  rest: AsyncIterator<Buffer>;
  cancel(): void;
  /** Set when the file is a Git LFS pointer. */
  lfs?: LfsServed;
}

/**
 * Reads just enough of a blob to choose its Content-Type (seed §4 browsing rule 4: the first
 * 8000 bytes), leaving the rest to be streamed: the response never holds the whole blob.
 */
export async function openRaw(stream: Pick<BlobStream, 'size' | 'chunks' | 'cancel'>): Promise<RawBlob> {
  const want = Math.min(stream.size, TEXT_SNIFF_BYTES);
  const iterator = stream.chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let got = 0;
  while (got < want) {
    const next = await iterator.next();
    if (next.done) break;
    parts.push(next.value);
    got += next.value.length;
  }
  const head = Buffer.concat(parts);
  return { size: stream.size, contentType: rawContentType(classifyBlob(head)), head, rest: iterator, cancel: () => stream.cancel() };
}

const NOTHING_MORE: AsyncIterator<Buffer> = { next: () => Promise.resolve({ done: true, value: undefined }) };

/** A blob already in memory (the object cache): all of it is the head. */
export function rawFromBytes(bytes: Buffer): RawBlob {
  return { size: bytes.length, contentType: rawContentType(classifyBlob(bytes)), head: bytes, rest: NOTHING_MORE, cancel: () => undefined };
}
