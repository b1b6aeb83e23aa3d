import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { validateOid } from '../git/validate.js';
import { openRepository, type StorageContext } from '../storage-context.js';

export function isAncestor(ctx: StorageContext) {
  return async (req: storage.IsAncestorRequest__Output, call: grpc.ServerUnaryCall<storage.IsAncestorRequest__Output, storage.IsAncestorResponse>): Promise<storage.IsAncestorResponse> => {
    const ancestor = validateOid(req.ancestor_oid, 'ancestor id');
    const descendant = validateOid(req.descendant_oid, 'descendant id');
    const repo = await openRepository(ctx, req.repository_id);
    return { is_ancestor: await repo.isAncestor(ancestor, descendant, signalOf(call)) };
  };
}
