import { conflict, notFound, validation } from '@githost/errors';
import { canWrite } from '@githost/identity';
import { requireCaller, requireVisible } from './access.js';
import { lifecycleEvent, type EventRepo } from './lifecycle-events.js';
import type { ActivityEntry, MergeRequestFields } from './ports.js';
import type { Deps } from './merge-requests.js';
import type { EventRelay } from './ports.js';
import type { Caller, MergeRequest, RepoRef } from './types.js';
import { validateUpdate } from './update-input.js';
import { isValidBranchName, mrNotFound, parseNumber } from './validate.js';
import type { EventEnvelope } from '@githost/bus';

export interface LifecycleDeps extends Deps {
  relay: EventRelay;
}

export interface LifecycleContext {
  repo: RepoRef | null;
  caller: Caller | null;
  requestId: string | null;
}

const alreadyMerged = () => conflict('Merge request is already merged');

/**
 * Edit, close or reopen (docs/decisions/merge-request-lifecycle.md: the author or a writer; a merged merge request
 * keeps its state; reopening needs both branches, and takes the source's current tip as head).
 * Each change, its activities and its events are one transaction.
 */
export async function updateMergeRequest(deps: LifecycleDeps, ctx: LifecycleContext, rawNumber: string, body: unknown): Promise<MergeRequest> {
  const caller = requireCaller(ctx.caller);
  const repo = requireVisible(ctx.repo);
  const mr = await deps.store.findByNumber(repo.id, parseNumber(rawNumber));
  if (!mr) throw mrNotFound(rawNumber);
  const isAuthor = caller.user_id !== null && caller.user_id === mr.author_id;
  if (!isAuthor && !canWrite(repo.permission)) throw validation('Only the author or users with write access can change this merge request');
  const input = validateUpdate(body);

  const set: MergeRequestFields = {};
  const activities: ActivityEntry[] = [];
  const actions: Array<{ action: 'edited' | 'closed' | 'reopened'; extra?: Record<string, unknown> }> = [];
  const ref = { mr_number: mr.number, mr_title: input.title ?? mr.title };

  const changes: Record<string, { from: string | null; to: string | null }> = {};
  if (input.title !== undefined && input.title !== mr.title) changes.title = { from: mr.title, to: input.title };
  if (input.description !== undefined && input.description !== mr.description) changes.description = { from: mr.description, to: input.description };
  if (input.target_branch !== undefined && input.target_branch !== mr.target_branch) {
    await requireRetarget(deps, repo, mr, input.target_branch);
    changes.target_branch = { from: mr.target_branch, to: input.target_branch };
  }
  if (Object.keys(changes).length > 0) {
    if (changes.title) set.title = input.title;
    if (changes.description) set.description = input.description;
    if (changes.target_branch) set.target_branch = input.target_branch;
    activities.push({ user_id: caller.user_id, action: 'update_mr', data: { ...ref, changes } });
    // GitHub's `changes.<field>.from` in the edited payload
    actions.push({ action: 'edited', extra: { changes: Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, { from: v.from }])) } });
  }

  if (input.state !== undefined && input.state !== mr.state) {
    if (mr.state === 'merged') throw alreadyMerged();
    if (input.state === 'closed') {
      set.state = 'closed';
      activities.push({ user_id: caller.user_id, action: 'close_mr', data: ref });
      actions.push({ action: 'closed' });
    } else {
      const head = await requireBranches(deps, repo, mr);
      set.state = 'open';
      set.head_sha = head;
      activities.push({ user_id: caller.user_id, action: 'reopen_mr', data: { ...ref, head_sha: head } });
      actions.push({ action: 'reopened' });
    }
  }
  if (activities.length === 0) return mr; // the values asked for are already there: nothing to record

  const eventRepo: EventRepo = { id: repo.id, owner: repo.owner, name: repo.name };
  const updated = await deps.store.applyChange({
    mr_id: mr.id,
    from_state: mr.state,
    set,
    activities,
    events: (after: MergeRequest): EventEnvelope[] => actions.map((a) => lifecycleEvent(a.action, after, eventRepo, caller.username, ctx.requestId, a.extra)),
    // A merge in flight decides the state; closing under it would leave a moved target behind.
    unless_merging: set.state === 'closed',
  });
  if (!updated) {
    const now = await deps.store.findById(mr.id);
    throw now?.state === 'merged' ? alreadyMerged() : conflict('Merge request changed meanwhile; retry');
  }
  deps.relay.kick();
  return updated;
}

/**
 * A new target for an open merge request: an existing branch other than the source (the create
 * rules' messages). A merged or closed one keeps its target, as on Gitea (409).
 */
async function requireRetarget(deps: Deps, repo: RepoRef, mr: MergeRequest, target: string): Promise<void> {
  if (mr.state === 'merged') throw alreadyMerged();
  if (mr.state !== 'open') throw conflict('Merge request is not open');
  if (target === mr.source_branch) throw validation('Source and target branches must be different');
  if (!isValidBranchName(target) || !(await deps.git.resolveBranch(repo.id, target))) throw notFound(`Branch not found: ${target}`);
}

/** seed §4 merge requests rule 3 order and message: the source first. Returns the source tip. */
async function requireBranches(deps: Deps, repo: RepoRef, mr: MergeRequest): Promise<string> {
  const tip = (branch: string) => (isValidBranchName(branch) ? deps.git.resolveBranch(repo.id, branch) : Promise.resolve(null));
  const source = await tip(mr.source_branch);
  if (!source) throw notFound(`Branch not found: ${mr.source_branch}`);
  if (!(await tip(mr.target_branch))) throw notFound(`Branch not found: ${mr.target_branch}`);
  return source;
}
