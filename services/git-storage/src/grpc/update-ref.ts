import { conflict, forbidden, validation } from '@githost/errors';
import { requestIdOfCall, type grpc } from '@githost/grpc';
import type { storage } from '@githost/protos';
import { refusalOf } from '@githost/ref-policy';
import { signalOf } from './call-signal.js';
import { validateOid, validateRefName } from '../git/validate.js';
import { openRepository, refsChanged, type StorageContext } from '../storage-context.js';

/**
 * Compare-and-swap ref move (`update-ref <ref> <new> <old>`) and its push event (CONTRACT §9:
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
    const repo = await openRepository(ctx, req.repository_id);
    const requestId = ec.request_id || requestIdOfCall(call);
    const context = { repository: { id: req.repository_id, owner: ec.owner, name: ec.name }, pusher: ec.pusher || 'unknown', requestId };
    // The three waits before the move are independent, so they overlap (bench/RESULTS.md "Merge
    // requests"): whether the move rewrites history, the repository's rules (docs/decisions/branch-protection.md: every ref move a service asks for obeys the same rules as a push, under
    // `merge`), and the fsynced intent record. The record holds only what is about to change; a
    // refused move drops it before anything moved (services/git-storage/README.md#push-events-survive-a-kill).
    const prepared = ctx.intents.prepare(repo.gitDir, context, [{ ref, before: oldOid, after: newOid }]);
    const checked = Promise.all([repo.isForced(oldOid, newOid, signalOf(call)), ctx.policies.policyOf(req.repository_id, requestId)]);
    // Before the move, which of the values the push event's new commits may follow from some ref
    // holds (the refs cache's index, PushEventRecorder.refsBeforeFor), plus the old value: usually
    // no rev-list is needed for them.
    const valuesBefore = ctx.events.refsBeforeFor(repo.gitDir, newOid, (oids) => ctx.refs.heldOf(repo.gitDir, oids)).then(
      (held) => held.add(oldOid),
      () => undefined,
    );
    let intent: Awaited<typeof prepared>;
    let forced: boolean;
    let refsBefore: Awaited<typeof valuesBefore>;
    try {
      const [[isForced, policy], record, values] = await Promise.all([checked, prepared, valuesBefore]);
      intent = record;
      refsBefore = values;
      forced = isForced;
      const refusal = refusalOf(policy, { ref, before: oldOid, after: newOid, forced }, { permission: 'write', via: 'merge' });
      if (refusal !== null) {
        // A caller working from a stale value hears that first: its request was about history that is gone.
        if ((await repo.refValue(ref)) !== oldOid) throw conflict(`Ref changed: ${ref} is no longer at ${oldOid}`);
        throw forbidden(refusal);
      }
    } catch (err) {
      // Refused, or a wait failed: the record (if it was written) goes, nothing moved.
      await prepared.then((record) => ctx.intents.drop(record), () => undefined);
      throw err;
    }
    const update = { ref, before: oldOid, after: newOid, forced };
    try {
      await repo.updateRef(ref, newOid, oldOid);
    } catch (err) {
      await ctx.intents.drop(intent);
      throw err;
    }
    // The C line and the push event's journal file are written while the watchers ack; the event
    // joins the journal once they have, after the C line, and after the answer: until then the
    // confirmed record holds the move, and a kill leaves it to the next start (services/git-storage/README.md#push-events-survive-a-kill, bench/RESULTS.md "Merge requests").
    const confirmed = ctx.intents.confirm(intent, [update]);
    confirmed.catch(() => undefined); // its failure is handled below
    const staged = ctx.intents.stageConfirmed(intent, repo.gitDir, context, [update], refsBefore);
    staged.catch(() => undefined); // likewise
    await refsChanged(ctx, repo.gitDir, req.repository_id, [ref]);
    const journaled = confirmed.then(async () => (await staged).settle());
    ctx.intents.track(
      journaled.catch(async (err: unknown) => {
        await staged.then((s) => s.discard()).catch(() => undefined);
        // The ref has moved; the caller was told so, rightly.
        ctx.logger.error({ err, ref }, 'UpdateRef: could not journal the push event; it is journaled at the next start');
      }),
    );
    // The C line is on disk before the answer: the next start then knows this move happened even
    // after the ref has moved again.
    await confirmed.catch(() => undefined);
    return {};
  };
}
