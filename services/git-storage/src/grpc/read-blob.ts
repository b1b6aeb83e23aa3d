import { AppError, notFound } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { validateOid, validatePath } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

const CHUNK = 64 * 1024;
/** Larger blobs stream on a process outside the repository's cap: a slow client may hold it long. */
const LONG_HOLD_BYTES = 1024 * 1024;

/**
 * Streams a blob straight from a cat-file process in chunks of at most 64 KiB, waiting for the
 * gRPC transport to drain between chunks, so a 200 MB blob never sits in memory. The entry and
 * size are looked up first; the content then streams on a process taken for it (beyond the
 * repository's process cap when the blob is large, so eight slow downloads cannot stall every
 * other read of the repository). A client that goes away mid-blob leaves the process half-read,
 * so it is killed instead of reused.
 */
export function readBlob(ctx: StorageContext) {
  return async (req: storage.ReadBlobRequest__Output, call: grpc.ServerWritableStream<storage.ReadBlobRequest__Output, storage.ReadBlobResponse>): Promise<void> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = validatePath(req.path);
    const repo = await openRepository(ctx, req.repository_id);
    const maxBytes = Number(req.max_bytes ?? 0);
    const blob = await repo.findBlob(commit, path);
    if (maxBytes > 0 && blob.size > maxBytes) {
      await writeMessage(call, { oid: blob.oid, size: blob.size, mode: blob.mode, too_large: true });
      return;
    }
    const p = await ctx.pool.acquire(repo.gitDir, { beyondRepositoryCap: blob.size > LONG_HOLD_BYTES });
    let clean = false;
    try {
      p.send([['contents', blob.oid]]);
      const h = await p.readHeader();
      if (!h) throw notFound(`Path not found: ${path}`);
      await writeMessage(call, { oid: h.oid, size: h.size, mode: blob.mode });
      for await (const chunk of p.streamBody(h.size, CHUNK)) {
        if (call.cancelled) return;
        await writeMessage(call, { data: chunk });
      }
      clean = true;
    } catch (err) {
      // A refusal (not found) is thrown only after its answer was read whole.
      clean = err instanceof AppError;
      throw err;
    } finally {
      ctx.pool.release(p, clean);
    }
  };
}
