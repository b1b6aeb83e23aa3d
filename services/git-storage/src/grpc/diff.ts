import { validation } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';
import { writeMessage } from './stream-write.js';

const DEFAULT_MAX_FILES = 3000;
const DEFAULT_MAX_PATCH_BYTES = 1024 * 1024;

/** One message per changed file (CONTRACT §5 limits), then a final message with `truncated`. */
export function diff(ctx: StorageContext) {
  return async (req: storage.DiffRequest__Output, call: grpc.ServerWritableStream<storage.DiffRequest__Output, storage.DiffResponse>): Promise<void> => {
    const from = validateOid(req.from_oid, 'from id');
    const to = validateOid(req.to_oid, 'to id');
    const maxFiles = req.max_files || DEFAULT_MAX_FILES;
    const maxPatchBytes = Number(req.max_patch_bytes) || DEFAULT_MAX_PATCH_BYTES;
    if (maxFiles > 100_000 || maxPatchBytes > 64 * 1024 * 1024) throw validation('Diff limits too large');
    const repo = await openRepository(ctx, req.repository_id);
    const files = repo.diff(from, to, { maxFiles, maxPatchBytes });
    try {
      for (;;) {
        if (call.cancelled) return;
        const next = await files.next();
        if (next.done) {
          await writeMessage(call, { truncated: next.value.truncated });
          return;
        }
        await writeMessage(call, { file: next.value });
      }
    } finally {
      // Kills git when the caller went away or a write failed mid-diff.
      await files.return({ truncated: false });
    }
  };
}
