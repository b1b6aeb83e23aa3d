import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { validateOid, validatePath } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

/** About a gRPC message's worth: some 900 records of a directory of short names. */
export const TREE_PIECE_BYTES = 64 * 1024;

/**
 * ReadTree's listing in pieces of whole records, each written once the transport took the last
 * (docs/decisions/big-pages.md#the-whole-tree-streamed): browse turns each piece into JSON and
 * sends it on, so neither side holds a big directory's answer whole per request. The listing
 * itself is the one ReadTree reads and keeps by tree id, sent as it is built when this read builds
 * it, else cut from the kept one; every refusal comes before the first message.
 */
export function readTreeStream(ctx: StorageContext) {
  return async (req: storage.ReadTreeStreamRequest__Output, call: grpc.ServerWritableStream<storage.ReadTreeStreamRequest__Output, storage.ReadTreeStreamResponse>): Promise<void> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = validatePath(req.path, { allowEmpty: true });
    const repo = await openRepository(ctx, req.repository_id);
    // A listing this read builds is sent piece by piece as its blob sizes are read, while the
    // transport takes them: the cat-file process must not wait on a slow reader, so once the
    // transport is full the rest waits for the whole listing and goes with backpressure below.
    let first = true;
    let told = 0;
    let paused = false;
    const onPiece = (entries: Buffer, whole: { treeOid: string; count: number }) => {
      if (paused || call.cancelled) return;
      paused = !call.write(first ? { tree_oid: whole.treeOid, count: whole.count, entries } : { entries });
      first = false;
      told += entries.length;
    };
    const listing = await repo.readTree(commit, path, { requireCommit: req.require_commit === true, onPiece });
    if (!first && told === listing.entries.length) return;
    for (const entries of piecesOf(listing.entries.subarray(told), TREE_PIECE_BYTES)) {
      if (call.cancelled) return;
      await writeMessage(call, first ? { tree_oid: listing.treeOid, count: listing.count, entries } : { entries });
      first = false;
    }
  };
}

/**
 * `ls-tree -z` records cut into pieces of at most `size` bytes at record ends (a record longer
 * than `size` is a piece of its own); always at least one piece, empty for an empty tree.
 * The pieces are views of `entries`, not copies.
 */
export function* piecesOf(entries: Buffer, size: number): Generator<Buffer> {
  let start = 0;
  do {
    if (entries.length - start <= size) {
      yield entries.subarray(start);
      return;
    }
    let nul = entries.lastIndexOf(0, start + size - 1);
    if (nul < start) nul = entries.indexOf(0, start + size);
    const end = nul === -1 ? entries.length : nul + 1;
    yield entries.subarray(start, end);
    start = end;
  } while (start < entries.length);
}
