import { ZERO_OID } from '@githost/git-records/object-id';
import { AppError, conflict, notFound, unavailable } from '@githost/errors';
import type { RefPolicy } from '@githost/ref-policy';
import { requireCaller, requireVisible, requireWrite } from './access.js';
import { COMMITS_LIMIT } from './commits.js';
import { commitMessage, validateMergeOptions, type MergeOptions } from './merge-options.js';
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
  /** Only when `delete_source_branch` was asked for: false when the branch stayed (it moved, or
   *  protection refused); the merge itself succeeded either way. */
  source_branch_deleted?: boolean;
}

const notOpen = () => conflict('Merge request is not open');

/** How long the loser of a claim waits for the merge in flight before answering. A live merge
 *  ends well within it; an intent whose process died waits for recovery (docs/operating.md#failure-and-recovery), far longer. */
export const CLAIM_WAIT_MS = 3_000;
const CLAIM_POLL_MS = 100;

/**
 * Another merge of this merge request is in flight. Once it ended, the loser gets the seed's
 * "not open" (CONTRACT §6); while the merge request still reads `open` (a merge whose process died
 * is being recovered), "not open" would contradict what every read says, so the answer is a 409
 * naming the merge in progress instead.
 */
async function claimLost(deps: MergeDeps, repoId: string, number: number): Promise<AppError> {
  const deadline = Date.now() + CLAIM_WAIT_MS;
  for (;;) {
    const now = await deps.store.findByNumber(repoId, number);
    if (now?.state !== 'open') return notOpen();
    if (Date.now() >= deadline) return conflict('A merge of this merge request is in progress; retry shortly');
    await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
  }
}

/**
 * seed §4 merge procedure, steps 1-8 in order, with CONTRACT §6 (three-way merge, conflicts,
 * compare-and-swap) and the crash-safety of a written intent (see reconcile.ts).
 */
export async function mergeMergeRequest(deps: MergeDeps, ctx: MergeContext, rawNumber: string, body?: unknown): Promise<MergeResult> {
  const caller = requireCaller(ctx.caller);
  const repo = requireVisible(ctx.repo);
  requireWrite(repo); // step 1
  const options = validateMergeOptions(body);
  // The target's rules are read while the merge request and the tips are (bench/RESULTS.md
  // "Merge requests"); this request's own read, so a changed rule governs the very next merge.
  const policy = deps.workflow?.policy.getRefPolicy(repo.id);
  policy?.catch(() => undefined); // a refusal before the gate is the answer; this one is then not awaited
  const mr = await deps.store.findByNumber(repo.id, parseNumber(rawNumber)); // step 2
  if (!mr) throw mrNotFound(rawNumber);
  if (mr.state !== 'open') throw notOpen();
  const plan = await planMerge(deps, repo, caller, mr, options, policy);
  // The claim makes concurrent merges of one merge request exclusive before the ref moves (the
  // losers see the seed's "not open" conflict, CONTRACT §6), and records the planned move in the
  // same write, before it happens: recovery relies on it (reconcile.ts).
  const claim = await deps.store.claimMerge({
    mr_id: mr.id,
    repo: { id: repo.id, owner: repo.owner, name: repo.name, shard: repo.shard },
    merger_id: caller.user_id,
    request_id: ctx.requestId,
    plan: { target_ref: `refs/heads/${mr.target_branch}`, old_oid: plan.target, new_oid: plan.sha, strategy: plan.strategy },
  });
  if (claim === 'not_open') throw await claimLost(deps, repo.id, mr.number);
  const moving = moveTarget(deps, repo, caller, mr, plan, ctx.requestId);
  // steps 7 and 8: one transaction, written while the ref moves and committed only once it has
  // (bench/RESULTS.md "Merge requests"); the relay publishes after commit, the response does not wait.
  const completing = deps.store.completeMergeOnMove(
    {
      mr_id: mr.id,
      merged_sha: plan.sha,
      merged_by: caller.user_id,
      event: (record: MergeRequest) => mergeRequestEvent(record, repo, ctx.requestId),
    },
    moving.then((m) => m.moved),
  );
  completing.catch(() => undefined); // awaited below, after the move's own outcome
  // Recovery finishes or undoes it soon; should even that not be written, it waits the whole grace.
  const leaveForRecovery = () => deps.store.leaveForRecovery(mr.id, ctx.requestId).catch(() => undefined);
  const move = await moving;
  if (!move.moved) {
    // Rolled back first: its hold on the intent ends before the claim is released.
    await completing.catch(() => undefined);
    if (move.release) await deps.store.releaseMerge(mr.id);
    else await leaveForRecovery();
    throw move.error;
  }
  let merged: Awaited<typeof completing>;
  try {
    merged = await completing;
  } catch (err) {
    // The ref moved and the completion did not commit (the database went away).
    await leaveForRecovery();
    throw err;
  }
  if (merged) deps.relay.kick();
  const result: MergeResult = { merged: true, sha: plan.sha, strategy: plan.strategy };
  if (options.delete_source_branch) result.source_branch_deleted = await deleteSource(deps, repo, caller, mr, plan.source, ctx.requestId);
  return result;
}

interface Plan {
  target: string;
  source: string;
  sha: string;
  strategy: MergeStrategy;
}

/**
 * Steps 3-5: the tips, then fast-forward or a merge commit; with options (docs/decisions/merge-options.md):
 * `sha` guards the reviewed head, `squash` writes one commit on the target tip,
 * `merge-commit` always writes a merge commit (GitHub's "Create a merge commit"),
 * `fast-forward-only` refuses anything else.
 */
async function planMerge(deps: MergeDeps, repo: RepoRef, caller: Caller, mr: MergeRequest, options: MergeOptions, policy?: Promise<RefPolicy>): Promise<Plan> {
  // A merge commit's committer is looked up meanwhile, in case the answer is "not a fast-forward".
  const committerOf = options.strategy === 'fast-forward-only' ? undefined : signatureOf(deps, caller.user_id);
  committerOf?.catch(() => undefined);
  // Step 3 and step 4's question in one git-storage call (bench/RESULTS.md "Merge requests", third pass).
  const { source, target, targetInSource } = await deps.git.mergeTips(repo.id, mr.source_branch, mr.target_branch, options.strategy !== 'fast-forward-only');
  // The source is still reported first, as step 3 lists it.
  if (!source) throw notFound(`Source branch not found: ${mr.source_branch}`);
  if (!target) throw notFound(`Target branch not found: ${mr.target_branch}`);
  await assertMergeAllowed(deps.workflow, repo, mr, source, policy); // services/merge-requests/README.md#merge-gate
  if (options.sha !== undefined && options.sha !== source) throw conflict('Head branch was modified');
  // step 4 (nothing to merge when the tips are equal, whatever the strategy)
  if (target === source || (targetInSource && (options.strategy === undefined || options.strategy === 'fast-forward-only'))) {
    return { target, source, sha: source, strategy: 'fast-forward' };
  }
  if (options.strategy === 'fast-forward-only') throw conflict('Fast-forward merge is not possible');
  // step 5, with CONTRACT §6: the merged tree of a real three-way merge
  const committer = await (committerOf ?? signatureOf(deps, caller.user_id));
  const squash = options.strategy === 'squash';
  const message = squash
    ? commitMessage(options.commit_title ?? `${mr.title} (#${mr.number})`, options.commit_message ?? (await squashedSubjects(deps, repo, target, source)))
    : options.commit_title !== undefined || options.commit_message !== undefined
      ? commitMessage(options.commit_title ?? `Merge branch '${mr.source_branch}' into ${mr.target_branch}`, options.commit_message)
      : `Merge branch '${mr.source_branch}' into ${mr.target_branch}\n`;
  const written = await deps.git.writeMerge(repo.id, {
    ours: target,
    theirs: source,
    // a squash keeps the merge request's author as the commit's author, as GitHub does
    author: squash ? { ...(await signatureOf(deps, mr.author_id)), timestamp: committer.timestamp } : committer,
    committer,
    message,
    ...(squash ? { squash: true } : {}),
  });
  if (!written.ok) throw conflict('Merge conflict', { conflicts: written.conflicts });
  return { target, source, sha: written.oid, strategy: squash ? 'squash' : 'merge-commit' };
}

/** GitHub's default squash body: one `* <subject>` line per squashed commit, oldest first. */
async function squashedSubjects(deps: MergeDeps, repo: RepoRef, target: string, source: string): Promise<string> {
  try {
    const { commits } = await deps.git.compare(repo.id, target, source, COMMITS_LIMIT);
    return commits.map((c) => `* ${c.message.split('\n', 1)[0]}`).join('\n');
  } catch (err) {
    // git-storage without Compare, or a history past its compare budget (validation 'Comparison
    // too big', docs/decisions/compare.md#budget): the title alone still makes a complete message.
    if (err instanceof AppError && (err.kind === 'unavailable' || err.kind === 'validation')) return '';
    throw err;
  }
}

/** seed §4 merge procedure step 5: the user's name and email, `unknown` when there is no user record. */
async function signatureOf(deps: MergeDeps, userId: string | null): Promise<Signature> {
  const user = userId ? (await deps.users.getUsers([userId])).get(userId) : undefined;
  const timestamp = Math.floor((deps.now ?? Date.now)() / 1000);
  return { name: user?.username ?? 'unknown', email: user?.email ?? 'unknown', timestamp };
}

/**
 * After the merge: delete the source branch by compare-and-swap from the tip that was merged.
 * A branch that moved meanwhile, or that protection keeps, stays; the merge is done regardless.
 */
async function deleteSource(deps: MergeDeps, repo: RepoRef, caller: Caller, mr: MergeRequest, sourceTip: string, requestId: string | null): Promise<boolean> {
  try {
    const outcome = await deps.git.updateRef(repo.id, {
      ref: `refs/heads/${mr.source_branch}`,
      newOid: ZERO_OID,
      oldOid: sourceTip,
      context: { owner: repo.owner, name: repo.name, pusher: caller.username, requestId: requestId ?? '' },
    });
    return outcome === 'ok';
  } catch {
    return false;
  }
}

/** How step 6 ended: moved, or not moved (the claim is released), or unknown (left to recovery). */
type MoveOutcome = { moved: true } | { moved: false; release: boolean; error: AppError };

/** Step 6: compare-and-swap from the tip the merge was computed on. Never throws. */
async function moveTarget(
  deps: MergeDeps,
  repo: RepoRef,
  caller: Caller,
  mr: MergeRequest,
  plan: Plan,
  requestId: string | null,
): Promise<MoveOutcome> {
  // Target already at the result (target == source): nothing to move, no empty push event.
  if (plan.sha === plan.target) return { moved: true };
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
    // Unknown: kept for recovery, and no longer refreshed (a refreshed intent is never recovered).
    if (tip === undefined) return { moved: false, release: false, error: unavailable('Merge outcome unknown; it will be completed or undone shortly', err) };
    if (tip === plan.sha) return { moved: true };
    return { moved: false, release: true, error: err instanceof AppError ? err : unavailable('git-storage failed to move the target branch', err) };
  }
  if (outcome === 'mismatch') return { moved: false, release: true, error: conflict('Target branch changed; retry the merge') };
  return { moved: true };
}
