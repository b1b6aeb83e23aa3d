import type { ObjectCache } from './object-cache.js';
import type { TreeStream } from './ports.js';
import type { StreamedJson } from './ref-lists.js';
import { countTreeRecords, parseTreeRecords } from './tree.js';

/**
 * The API's whole tree answer of a big directory, written as git-storage's pieces arrive
 * (docs/decisions/big-pages.md#the-whole-tree-streamed): at 100,000 entries it is 14.5 MB, and
 * parsing and serialising it whole held the first byte back and the whole answer in memory.
 */

/** Whether `stream`'s first piece holds every entry: then the answer is built whole, as before. */
export function isWholeTree(stream: TreeStream): boolean {
  return countTreeRecords(stream.first) === stream.count;
}

/** A tree answer whose pieces come as git-storage's do. */
export type StreamedTree = StreamedJson<AsyncIterable<string | Buffer>>;

/** Where a streamed answer's `entries` JSON goes once it is complete (the object cache). */
export interface TreeKeep {
  cache: ObjectCache;
  key: string;
}

/**
 * `head` (the answer up to `"entries":`), then the entries array a piece at a time, then `}`.
 * Each piece is JSON.stringify of its parsed entries without the brackets (which measured faster
 * than writing the text from the records: bench/RESULTS.md, "2026-11-29: big pages"), so the
 * joined pieces are byte for byte JSON.stringify of the whole array, the answer it always was. The next piece is
 * read from git-storage only once the caller took the last (gRPC flow control pauses it
 * between), so a request holds a few pieces, never the answer. With `keep` (claimed by
 * ObjectCache.claimFill) the entries' bytes are collected while they fit an entry of the
 * cache and kept once the last piece is built, so the next read is a warm one.
 */
export function streamedTree(stream: TreeStream, path: string, head: string, keep?: TreeKeep): StreamedTree {
  let started = false;
  let finished = false;
  const release = () => {
    if (!finished) stream.cancel();
    keep?.cache.fill(keep.key, undefined);
  };
  async function* chunks(): AsyncGenerator<string | Buffer> {
    started = true;
    let kept: Buffer[] | undefined = keep ? [] : undefined;
    let keptBytes = 0;
    const limit = keep?.cache.maxEntryBytes ?? 0;
    let open = '[';
    const entries = (piece: Uint8Array): Buffer | undefined => {
      const text = JSON.stringify(parseTreeRecords(piece, path)).slice(1, -1);
      if (text === '') return undefined;
      const bytes = Buffer.from(open + text);
      open = ',';
      if (kept) {
        keptBytes += bytes.length;
        if (keptBytes > limit) kept = undefined;
        else kept.push(bytes);
      }
      return bytes;
    };
    try {
      yield head;
      const first = entries(stream.first);
      if (first) yield first;
      for await (const piece of stream.rest) {
        const bytes = entries(piece);
        if (bytes) yield bytes;
      }
      finished = true;
      const close = Buffer.from(open === '[' ? '[]' : ']');
      if (keep && kept) {
        kept.push(close);
        keep.cache.fill(keep.key, Buffer.concat(kept, keptBytes + close.length));
      }
      yield close;
      yield '}';
    } finally {
      release();
    }
  }
  return {
    streamed: true,
    chunks,
    // A HEAD, or a 304 after all, never starts the pieces: the read and the claim end here.
    cancel: () => {
      if (!started) release();
    },
  };
}
