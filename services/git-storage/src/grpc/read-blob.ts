import { AppError, notFound, validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { findTreeEntry } from '../git/objects.js';
import { validateOid, validatePath } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

const CHUNK = 64 * 1024;

/**
 * Streams a blob straight from a cat-file process in chunks of at most 64 KiB, waiting for the
 * gRPC transport to drain between chunks, so a 200 MB blob never sits in memory. The entry lookup,
 * the size check and the content come from one process taken once. A client that goes away
 * mid-blob leaves the process half-read, so it is killed instead of reused.
 */
export function readBlob(ctx: StorageContext) {
  return async (req: storage.ReadBlobRequest__Output, call: grpc.ServerWritableStream<storage.ReadBlobRequest__Output, storage.ReadBlobResponse>): Promise<void> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = validatePath(req.path);
    const gitDir = await existingRepository(ctx, req.repository_id);
    const maxBytes = Number(req.max_bytes ?? 0);
    const p = await ctx.pool.acquire(gitDir);
    let clean = false;
    try {
      const entry = await findTreeEntry(p, ctx.cache, commit, path);
      if (entry.mode === '040000' || entry.mode === '160000') throw validation(`Not a file: ${path}`);
      if (maxBytes > 0) {
        p.send([['info', entry.oid]]);
        const info = await p.readHeader();
        if (!info) throw notFound(`Path not found: ${path}`);
        if (info.size > maxBytes) {
          clean = true;
          await writeMessage(call, { oid: info.oid, size: info.size, mode: entry.mode, too_large: true });
          return;
        }
      }
      p.send([['contents', entry.oid]]);
      const h = await p.readHeader();
      if (!h) throw notFound(`Path not found: ${path}`);
      await writeMessage(call, { oid: h.oid, size: h.size, mode: entry.mode });
      for await (const chunk of p.streamBody(h.size, CHUNK)) {
        if (call.cancelled) return;
        await writeMessage(call, { data: chunk });
      }
      clean = true;
    } catch (err) {
      // A refusal (not found, not a file) is thrown only after its answer was read whole.
      clean = err instanceof AppError;
      throw err;
    } finally {
      ctx.pool.release(p, clean);
    }
  };
}
