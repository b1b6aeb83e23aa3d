import { AppError, conflict, notFound, unavailable } from '@githost/errors';
import { requireCaller, requireVisible, requireWrite } from './access.js';
import { assertMergeAllowed } from './merge-gate.js';
import { mergeRequestEvent } from './merge-request-event.js';
import type { Deps } from './merge-requests.js';
import type { EventRelay, Signature } from './ports.js';
import type { Caller, MergeRequest, MergeStrategy, RepoRef } from './types.js';
import { mrNotFound, parseNumber } from './validate.js';

export interface MergeDeps extends Deps {
  relay: EventRelay;
  now?: () => number;
}

export interface MergeContext {
  repo: RepoRef | null;
  caller: Caller | null;
  requestId: string | null;
}

export interface MergeResult {
  merged: true;
  sha: string;
  strategy: MergeStrategy;
}

const notOpen = () => conflict('Merge request is not open');

/**
 * seed §4 merge procedure, steps 1-8 in order, with CONTRACT §6 (three-way merge, conflicts,
 * compare-and-swap) and the crash-safety of a written intent (see reconcile.ts).
 */
export async function mergeMergeRequest(deps: MergeDeps, ctx: MergeContext, rawNumber: string): Promise<MergeResult> {
  const caller = requireCaller(ctx.caller);
  const repo = requireVisible(ctx.repo);
  requireWrite(repo); // step 1
  const mr = await deps.store.findByNumber(repo.id, parseNumber(rawNumber)); // step 2
  if (!mr) throw mrNotFound(rawNumber);
  if (mr.state !== 'open') throw notOpen();
  // The claim makes concurrent merges of one merge request exclusive before git is touched:
  // the losers see the seed's "not open" conflict (CONTRACT §6).
  const claim = await deps.store.claimMerge({
    mr_id: mr.id,
    repo: { id: repo.id, owner: repo.owner, name: repo.name, shard: repo.shard },
    merger_id: caller.user_id,
    request_id: ctx.requestId,
  });
  if (claim === 'not_open') throw notOpen();

  let plan: { target: string; sha: string; strategy: MergeStrategy };
  try {
    plan = await planMerge(deps, repo, caller, mr);
    const planned = await deps.store.planMerge(mr.id, { target_ref: `refs/heads/${mr.target_branch}`, old_oid: plan.target, new_oid: plan.sha, strategy: plan.strategy });
    if (!planned) throw unavailable('The merge took too long and was abandoned; retry the merge');
  } catch (err) {
    await deps.store.releaseMerge(mr.id);
    throw err;
  }
  await moveTarget(deps, repo, caller, mr, plan, ctx.requestId);

  // steps 7 and 8: one transaction; the relay publishes after commit, the response does not wait.
  const merged = await deps.store.completeMerge({
    mr_id: mr.id,
    merged_sha: plan.sha,
    merged_by: caller.user_id,
    event: (record: MergeRequest) => mergeRequestEvent(record, repo, ctx.requestId),
  });
  if (merged) deps.relay.kick();
  return { merged: true, sha: plan.sha, strategy: plan.strategy };
}

/** Steps 3-5: the tips, then fast-forward or a merge commit. */
async function planMerge(deps: MergeDeps, repo: RepoRef, caller: Caller, mr: MergeRequest) {
  // Both looked up at once; the source is still reported first, as step 3 lists it.
  const [source, target] = await Promise.all([deps.git.resolveBranch(repo.id, mr.source_branch), deps.git.resolveBranch(repo.id, mr.target_branch)]);
  if (!source) throw notFound(`Source branch not found: ${mr.source_branch}`);
  if (!target) throw notFound(`Target branch not found: ${mr.target_branch}`);
  await assertMergeAllowed(deps.workflow, repo, mr, source); // README "Merge gate"; the caller releases the claim
  // step 4
  if (target === source || (await deps.git.isAncestor(repo.id, target, source))) {
    return { target, sha: source, strategy: 'fast-forward' as const };
  }
  // step 5, with CONTRACT §6: the merged tree of a real three-way merge
  const signature = await signatureOf(deps, caller);
  const written = await deps.git.writeMerge(repo.id, {
    ours: target,
    theirs: source,
    author: signature,
    committer: signature,
    message: `Merge branch '${mr.source_branch}' into ${mr.target_branch}\n`,
  });
  if (!written.ok) throw conflict('Merge conflict', { conflicts: written.conflicts });
  return { target, sha: written.oid, strategy: 'merge-commit' as const };
}

/** seed §4 merge procedure step 5: the merging user, `unknown` when there is no user record. */
async function signatureOf(deps: MergeDeps, caller: Caller): Promise<Signature> {
  const user = caller.user_id ? (await deps.users.getUsers([caller.user_id])).get(caller.user_id) : undefined;
  const timestamp = Math.floor((deps.now ?? Date.now)() / 1000);
  return { name: user?.username ?? 'unknown', email: user?.email ?? 'unknown', timestamp };
}

/** Step 6: compare-and-swap from the tip the merge was computed on. */
async function moveTarget(
  deps: MergeDeps,
  repo: RepoRef,
  caller: Caller,
  mr: MergeRequest,
  plan: { target: string; sha: string },
  requestId: string | null,
): Promise<void> {
  // Target already at the result (target == source): nothing to move, no empty push event.
  if (plan.sha === plan.target) return;
  let outcome: 'ok' | 'mismatch';
  try {
    outcome = await deps.git.updateRef(repo.id, {
      ref: `refs/heads/${mr.target_branch}`,
      newOid: plan.sha,
      oldOid: plan.target,
      context: { owner: repo.owner, name: repo.name, pusher: caller.username, requestId: requestId ?? '' },
    });
  } catch (err) {
    // The move may or may not have happened (timeout, storage restart): the ref tells the truth.
    const tip = await deps.git.resolveBranch(repo.id, mr.target_branch).catch(() => undefined);
    if (tip === undefined) throw unavailable('Merge outcome unknown; it will be completed or undone shortly', err); // intent kept for reconcile
    if (tip === plan.sha) return;
    await deps.store.releaseMerge(mr.id);
    throw err instanceof AppError ? err : unavailable('git-storage failed to move the target branch', err);
  }
  if (outcome === 'mismatch') {
    await deps.store.releaseMerge(mr.id);
    throw conflict('Target branch changed; retry the merge');
  }
}
