import type { EventEnvelope } from '@githost/bus';
import { AppError } from '@githost/errors';
import { lifecycleEvent, type EventRepo } from './lifecycle-events.js';
import type { MergeRequestChange } from './lifecycle-ports.js';
import { mergeRequestEvent } from './merge-request-event.js';
import type { EventRelay, GitPort, MergeRequestStore, UserDirectory } from './ports.js';
import type { MergeRequest } from './types.js';

const ZERO_OID = '0'.repeat(40);

export interface FollowDeps {
  store: MergeRequestStore;
  users: UserDirectory;
  relay: EventRelay;
  /** git access on one shard (the repository's, as stored with its merge requests). */
  gitOn(shard: string): GitPort;
}

/** The fields of git-storage's `push` payload (CONTRACT §7) this side reads. */
interface PushFields {
  ref?: unknown;
  before?: unknown;
  after?: unknown;
  forced?: unknown;
  commits?: unknown;
  sender?: { username?: unknown };
}

export type PushOutcome = 'applied' | 'duplicate' | 'nothing';

const isOid = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{40}$/.test(v);

/**
 * A merge request follows its source branch, as GitHub's pull requests do (README "Decisions"):
 * - a push to the source of an open merge request sets `head_sha` (activity `push_mr`, event
 *   `synchronize`); a deleted source branch closes it (activity `close_mr`, event `closed`);
 * - a push to the target that now contains an open merge request's head merges it by itself
 *   (`merged_sha` = the head, `merged_by` = the pusher, activity `merge_mr`, the seed's event).
 * Everything one event causes is one transaction that also records the event as handled, so a
 * redelivered event (the bus is at-least-once) changes nothing and emits nothing again.
 */
export async function followPush(deps: FollowDeps, event: EventEnvelope): Promise<PushOutcome> {
  const p = (event.payload ?? {}) as PushFields;
  if (typeof p.ref !== 'string' || !p.ref.startsWith('refs/heads/') || !isOid(p.before) || !isOid(p.after)) return 'nothing';
  const branch = p.ref.slice('refs/heads/'.length);
  const repoId = event.repository.id;
  const [bySource, byTarget] = await Promise.all([deps.store.openBySource(repoId, branch), deps.store.openByTarget(repoId, branch)]);
  if (bySource.length === 0 && byTarget.length === 0) return 'nothing';
  if (await deps.store.wasHandled(event.id)) return 'duplicate';

  const git = deps.gitOn((await deps.store.shardOf(repoId)) ?? 'default');
  const push = { before: p.before, after: p.after, sender: typeof p.sender?.username === 'string' ? p.sender.username : 'unknown', requestId: event.request_id ?? null };
  const pusher = await pusherId(deps.users, push.sender);
  const repo: EventRepo = event.repository;
  const changes: MergeRequestChange[] = [];

  if (push.after === ZERO_OID) {
    for (const mr of bySource) changes.push(closedBySourceDeletion(mr, repo, push, pusher));
  } else {
    const moved = bySource.filter((mr) => mr.head_sha !== push.after);
    if (moved.length > 0) {
      const { forced, newCommits } = await describePush(git, repoId, p, push);
      for (const mr of moved) {
        const data = { mr_number: mr.number, mr_title: mr.title, before: push.before, after: push.after, new_commits: newCommits, forced };
        changes.push({
          mr_id: mr.id,
          from_state: 'open',
          set: { head_sha: push.after },
          activities: [{ user_id: pusher, action: 'push_mr', data }],
          events: (after) => [lifecycleEvent('synchronize', after, repo, push.sender, push.requestId, { before: push.before, after: push.after, forced })],
        });
      }
    }
    for (const mr of byTarget) {
      if (!(await contains(git, repoId, push.after, mr.head_sha))) continue;
      changes.push({
        mr_id: mr.id,
        from_state: 'open',
        set: { state: 'merged', merged_sha: mr.head_sha, merged_by: pusher },
        activities: [{ user_id: pusher, action: 'merge_mr', data: { mr_number: mr.number, mr_title: mr.title, merged_sha: mr.head_sha } }],
        // seed §6 payload exactly, as for a merge through the API
        events: (after) => [mergeRequestEvent(after, repo, push.requestId)],
        unless_merging: true,
      });
    }
  }
  if (changes.length === 0) return 'nothing';
  const applied = await deps.store.applyEvent(event.id, repoId, changes);
  if (applied) deps.relay.kick();
  return applied ? 'applied' : 'duplicate';
}

/** GitHub closes a pull request whose head branch is deleted; the pusher closed it. */
function closedBySourceDeletion(mr: MergeRequest, repo: EventRepo, push: { sender: string; requestId: string | null }, pusher: string | null): MergeRequestChange {
  return {
    mr_id: mr.id,
    from_state: 'open',
    set: { state: 'closed' },
    activities: [{ user_id: pusher, action: 'close_mr', data: { mr_number: mr.number, mr_title: mr.title, reason: 'source_branch_deleted' } }],
    events: (after) => [lifecycleEvent('closed', after, repo, push.sender, push.requestId)],
    unless_merging: true,
  };
}

/**
 * `forced`: the old tip is not in the new history (the push payload's own flag when git-storage
 * sends one). `new_commits`: commits of the new tip not in the old one (a created branch: those
 * the push brought).
 */
async function describePush(git: GitPort, repoId: string, p: PushFields, push: { before: string; after: string }) {
  const brought = Array.isArray(p.commits) ? p.commits.length : 0;
  if (push.before === ZERO_OID) return { forced: false, newCommits: brought };
  const forced = typeof p.forced === 'boolean' ? p.forced : !(await contains(git, repoId, push.after, push.before));
  let newCommits = brought;
  try {
    newCommits = (await git.compare(repoId, push.before, push.after, 1)).ahead_by;
  } catch (err) {
    // An old git-storage without Compare: the commits the push brought are the best count left.
    if (!(err instanceof AppError) || err.kind !== 'unavailable') throw err;
  }
  return { forced, newCommits };
}

/** Whether `tip`'s history contains `commit`; a commit git no longer has is not contained. */
async function contains(git: GitPort, repoId: string, tip: string, commit: string): Promise<boolean> {
  try {
    return await git.isAncestor(repoId, commit, tip);
  } catch (err) {
    if (err instanceof AppError && (err.kind === 'not_found' || err.kind === 'validation')) return false;
    throw err;
  }
}

async function pusherId(users: UserDirectory, username: string): Promise<string | null> {
  return (await users.getUsersByName([username])).get(username)?.id ?? null;
}

/** The repository is gone (git-storage's `repository_deleted`): so is everything stored for it. */
export async function forgetRepository(deps: Pick<FollowDeps, 'store'>, event: EventEnvelope): Promise<void> {
  await deps.store.deleteRepository(event.repository.id);
}
