import { notFound } from '@githost/errors';
import type { grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { signalOf } from './call-signal.js';
import { runGit } from '../git/command.js';
import { NotFoundError } from '../git/errors.js';
import { validateOid } from '../git/validate.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

export function isAncestor(ctx: StorageContext) {
  return async (req: storage.IsAncestorRequest__Output, call: grpc.ServerUnaryCall<storage.IsAncestorRequest__Output, storage.IsAncestorResponse>): Promise<storage.IsAncestorResponse> => {
    const ancestor = validateOid(req.ancestor_oid, 'ancestor id');
    const descendant = validateOid(req.descendant_oid, 'descendant id');
    const gitDir = await existingRepository(ctx, req.repository_id);
    try {
      // Exit 1 is the answer "no", not a failure.
      const { exitCode } = await runGit({ name: 'merge-base', flags: ['--is-ancestor'], args: [ancestor, descendant] }, { gitDir, okExitCodes: [1], signal: signalOf(call) });
      return { is_ancestor: exitCode === 0 };
    } catch (err) {
      if (err instanceof NotFoundError) throw notFound('Commit not found');
      throw err;
    }
  };
}
