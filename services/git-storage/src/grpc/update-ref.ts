import { conflict, forbidden, notFound, validation } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { refusalOf } from '@githost/ref-policy';
import { signalOf } from './call-signal.js';
import { runGit } from '../git/command.js';
import { GitError, NotFoundError, RefLockedError, RefMismatchError } from '../git/errors.js';
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
    const requestId = ec.request_id || requestIdOfCall(call);
    const forced = await isForced(gitDir, oldOid, newOid, signalOf(call));
    // README "Branch and tag protection": every ref move a service asks for obeys the same rules
    // as a push, under `merge` (a rule's push restriction is for direct pushes only).
    const policy = await ctx.policies.policyOf(req.repository_id, requestId);
    const refusal = refusalOf(policy, { ref, before: oldOid, after: newOid, forced }, { permission: 'write', via: 'merge' });
    if (refusal !== null) {
      // A caller working from a stale value hears that first: its request was about history that is gone.
      if ((await currentValue(gitDir, ref)) !== oldOid) throw conflict(`Ref changed: ${ref} is no longer at ${oldOid}`);
      throw forbidden(refusal);
    }
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
        { repository: { id: req.repository_id, owner: ec.owner, name: ec.name }, pusher: ec.pusher || 'unknown', requestId },
        [{ ref, before: oldOid, after: newOid, forced }],
      );
    } catch (err) {
      // The ref has moved; failing the call now would make the caller believe it had not.
      ctx.logger.error({ err, ref }, 'UpdateRef: could not journal the push event');
    }
    return {};
  };
}

/**
 * Not a fast-forward: both ids set and `before` not an ancestor of `after`. An id git cannot read
 * is left to the compare-and-swap to refuse (not found, or changed), so it counts as not forced.
 */
async function isForced(gitDir: string, before: string, after: string, signal: AbortSignal): Promise<boolean> {
  if (before === ZERO_OID || after === ZERO_OID) return false;
  try {
    const { exitCode } = await runGit({ name: 'merge-base', flags: ['--is-ancestor'], args: [before, after] }, { gitDir, okExitCodes: [1], signal });
    return exitCode === 1;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}

async function currentValue(gitDir: string, ref: string): Promise<string> {
  const { stdout, exitCode } = await runGit({ name: 'rev-parse', flags: ['--verify', '--quiet'], args: [ref] }, { gitDir, okExitCodes: [1] });
  return exitCode === 0 ? stdout.toString('utf8').trim() : ZERO_OID;
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
