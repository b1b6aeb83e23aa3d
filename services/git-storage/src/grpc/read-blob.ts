import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { validateOid, validatePath } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

const CHUNK = 64 * 1024;

/**
 * Streams a blob in chunks of at most 64 KiB, waiting for the gRPC transport to drain between
 * chunks. The entry and size are looked up first: a blob over `max_bytes` is answered with its
 * header and `too_large`; one of at most a chunk comes whole in the header's message. A client that goes away mid-blob stops the read (LocalRepository.readBlob).
 */
export function readBlob(ctx: StorageContext) {
  return async (req: storage.ReadBlobRequest__Output, call: grpc.ServerWritableStream<storage.ReadBlobRequest__Output, storage.ReadBlobResponse>): Promise<void> => {
    const commit = validateOid(req.commit_oid, 'commit id');
    const path = validatePath(req.path);
    const repo = await openRepository(ctx, req.repository_id);
    const maxBytes = Number(req.max_bytes ?? 0);
    const blob = await repo.findBlob(commit, path, req.require_commit === true, maxBytes > 0 ? Math.min(maxBytes, CHUNK) : CHUNK);
    if (maxBytes > 0 && blob.size > maxBytes) {
      await writeMessage(call, { oid: blob.oid, size: blob.size, mode: blob.mode, too_large: true });
      return;
    }
    // A blob of one chunk or less was read with its header: one message, no second cat-file hold.
    if (blob.data) return void (await writeMessage(call, { oid: blob.oid, size: blob.size, mode: blob.mode, data: blob.data }));
    await writeMessage(call, { oid: blob.oid, size: blob.size, mode: blob.mode });
    for await (const chunk of repo.readBlob(blob, CHUNK)) {
      if (call.cancelled) return;
      await writeMessage(call, { data: chunk });
    }
  };
}
