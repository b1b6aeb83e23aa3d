import { notFound } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { runGit } from '../git/command.js';
import { NotFoundError } from '../git/errors.js';
import { validateOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

export function mergeBase(ctx: StorageContext) {
  return async (req: storage.MergeBaseRequest__Output, call: grpc.ServerUnaryCall<storage.MergeBaseRequest__Output, storage.MergeBaseResponse>): Promise<storage.MergeBaseResponse> => {
    const left = validateOid(req.left_oid, 'left id');
    const right = validateOid(req.right_oid, 'right id');
    const gitDir = await existingRepository(ctx, req.repository_id);
    try {
      // Exit 1 with no output: unrelated histories, answered as an empty oid.
      const { stdout } = await runGit({ name: 'merge-base', args: [left, right] }, { gitDir, okExitCodes: [1], signal: signalOf(call) });
      return { oid: stdout.toString('utf8').trim() };
    } catch (err) {
      if (err instanceof NotFoundError) throw notFound('Commit not found');
      throw err;
    }
  };
}
