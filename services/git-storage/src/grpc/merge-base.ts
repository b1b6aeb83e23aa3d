import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

/** Unrelated histories are answered with an empty oid. */
export function mergeBase(ctx: StorageContext) {
  return async (req: storage.MergeBaseRequest__Output, call: grpc.ServerUnaryCall<storage.MergeBaseRequest__Output, storage.MergeBaseResponse>): Promise<storage.MergeBaseResponse> => {
    const left = validateOid(req.left_oid, 'left id');
    const right = validateOid(req.right_oid, 'right id');
    const repo = await openRepository(ctx, req.repository_id);
    return { oid: await repo.mergeBase(left, right, signalOf(call)) };
  };
}
