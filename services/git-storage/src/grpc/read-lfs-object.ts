import { notFound, validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import { LFS_OID } from '@githost/git-records/lfs-pointer';
import type { storage } from '@githost/protos';
import { existingRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

const CHUNK = 64 * 1024;

/**
 * Streams a Git LFS object of the repository, for raw and the web's file page (docs/decisions/lfs.md#display):
 * the size first, then chunks of at most 64 KiB, each written only once the transport drained, so
 * memory stays flat whatever the object's size. The same rule as the LFS API: only an object this
 * repository holds.
 */
export function readLfsObject(ctx: StorageContext) {
  return async (req: storage.ReadLfsObjectRequest__Output, call: grpc.ServerWritableStream<storage.ReadLfsObjectRequest__Output, storage.ReadLfsObjectResponse>): Promise<void> => {
    if (!LFS_OID.test(req.oid)) throw validation('oid must be a sha256 in lowercase hex');
    await existingRepository(ctx, req.repository_id);
    const found = await ctx.lfs.read(req.repository_id, req.oid);
    if (!found) throw notFound('LFS object not found');
    const body = found.body;
    try {
      await writeMessage(call, { size: found.size });
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (call.cancelled) return;
        // A file stream reads 64 KiB at a time; anything larger is split to the stated bound.
        for (let at = 0; at < chunk.length; at += CHUNK) await writeMessage(call, { data: chunk.subarray(at, at + CHUNK) });
      }
    } finally {
      body.destroy();
    }
  };
}
