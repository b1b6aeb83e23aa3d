import { conflict, notFound, validation } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { runGit } from '../git/command.js';
import { GitError, RefLockedError, RefMismatchError } from '../git/errors.js';
import { validateOid, validateRefName, ZERO_OID } from '../git/validate.js';
import { existingRepository, refsChanged, type StorageContext } from '../storage-context.js';

/**
 * Compare-and-swap ref move (`update-ref <ref> <new> <old>`), then the push event (CONTRACT §9:
 * every ref change, a merge's included, emits one). The event context is required so no event
 * goes out without a repository name.
 */
export function updateRef(ctx: StorageContext) {
  return async (req: storage.UpdateRefRequest__Output, call: grpc.ServerUnaryCall<storage.UpdateRefRequest__Output, storage.UpdateRefResponse>): Promise<storage.UpdateRefResponse> => {
    const ref = validateRefName(req.ref);
    const newOid = validateOid(req.new_oid, 'new id');
    const oldOid = validateOid(req.old_oid, 'old id');
    const ec = req.context;
    if (!ec || !ec.owner || !ec.name) throw validation('context.owner and context.name are required');
    const gitDir = await existingRepository(ctx, req.repository_id);
    try {
      await moveRef(gitDir, ref, newOid, oldOid);
    } catch (err) {
      if (err instanceof RefMismatchError) throw conflict(`Ref changed: ${ref} is no longer at ${oldOid}`);
      if (err instanceof RefLockedError) throw conflict(`Ref changed: ${ref} is being updated`);
      if (err instanceof GitError && /not a valid SHA1|trying to write non-commit|does not point to a valid object/i.test(err.stderr)) throw notFound(`Commit not found: ${newOid}`);
      throw err;
    }
    await refsChanged(ctx, gitDir, req.repository_id);
    try {
      await ctx.events.record(
        gitDir,
        { repository: { id: req.repository_id, owner: ec.owner, name: ec.name }, pusher: ec.pusher || 'unknown', requestId: ec.request_id || requestIdOfCall(call) },
        [{ ref, before: oldOid, after: newOid }],
      );
    } catch (err) {
      // The ref has moved; failing the call now would make the caller believe it had not.
      ctx.logger.error({ err, ref }, 'UpdateRef: could not journal the push event');
    }
    return {};
  };
}

const LOCK_RETRY_MS = [25, 75, 200];

/**
 * A lock held by housekeeping (pack-refs) or a push is brief, so a locked ref is retried a few
 * times before the caller hears "changed"; a value mismatch is final at once.
 */
async function moveRef(gitDir: string, ref: string, newOid: string, oldOid: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (newOid === ZERO_OID) await runGit({ name: 'update-ref', flags: ['-d'], args: [ref, oldOid] }, { gitDir });
      else await runGit({ name: 'update-ref', args: [ref, newOid, oldOid] }, { gitDir });
      return;
    } catch (err) {
      const wait = LOCK_RETRY_MS[attempt];
      if (!(err instanceof RefLockedError) || wait === undefined) throw err;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}
