import { isFullOid, ZERO_OID } from '@githost/git-records/object-id';
import type { EventEnvelope } from '@githost/bus';
import { AppError } from '@githost/errors';
import { lifecycleEvent, type EventRepo } from './lifecycle-events.js';
import type { MergeRequestChange } from './ports.js';
import { mergeRequestEvent } from './merge-request-event.js';
import type { EventRelay, GitPort, MergeRequestStore, UserDirectory } from './ports.js';
import type { MergeRequest } from './types.js';


export interface FollowDeps {
  store: MergeRequestStore;
  users: UserDirectory;
  relay: EventRelay;
  /** git access on one shard (the repository's, as stored with its merge requests). */
  gitOn(shard: string): GitPort;
  /** Tells readers keeping the repository's merge request answers that they changed (http/announce.ts). */
  announce?(shard: string, repositoryId: string): Promise<void>;
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


/**
 * A merge request follows its source branch, as GitHub's pull requests do (docs/decisions/following-source-branch.md):
 * - a push to the source of an open merge request sets `head_sha` (activity `push_mr`, event
 *   `synchronize`); a deleted source branch is recorded and the merge request stays open;
 * - a plain push of the target that now contains an open merge request's head merges it by
 *   itself (`merged_sha` = the head, `merged_by` = the pusher, activity `merge_mr`, the seed's event).
 * Everything one event causes is one transaction that also records the event as handled, so a
 * redelivered event (the bus is at-least-once) changes nothing and emits nothing again.
 */
export async function followPush(deps: FollowDeps, event: EventEnvelope): Promise<PushOutcome> {
  const p = (event.payload ?? {}) as PushFields;
  if (typeof p.ref !== 'string' || !p.ref.startsWith('refs/heads/') || !isFullOid(p.before) || !isFullOid(p.after)) return 'nothing';
  const branch = p.ref.slice('refs/heads/'.length);
  const repoId = event.repository.id;
  // Almost every push touches a branch no open merge request uses: one lookup, and done.
  const open = await deps.store.openOnBranch(repoId, branch);
  if (open.length === 0) return 'nothing';
  const bySource = open.filter((mr) => mr.source_branch === branch);
  const byTarget = open.filter((mr) => mr.target_branch === branch);
  if (await deps.store.wasHandled(event.id)) return 'duplicate';

  const shard = (await deps.store.shardOf(repoId)) ?? 'default';
  const git = deps.gitOn(shard);
  const push = { before: p.before, after: p.after, sender: typeof p.sender?.username === 'string' ? p.sender.username : 'unknown', requestId: event.request_id ?? null };
  const pusher = await pusherId(deps.users, push.sender);
  const repo: EventRepo = event.repository;
  const changes: MergeRequestChange[] = [];

  if (push.after === ZERO_OID) {
    // seed §4 merge step 3 keeps `Source branch not found` for this case: the merge request stays
    // open; the deletion is recorded, and a branch pushed again under the name is followed.
    for (const mr of bySource) changes.push(sourceDeleted(mr, push, pusher));
  } else {
    // Merge requests of one source share a head almost always: git is asked once per distinct head,
    // not once per merge request (2,000 of them on one branch are one question, not 2,000).
    const described = new Map<string, ReturnType<typeof describePush>>();
    const describe = (head: string) => described.get(head) ?? described.set(head, describePush(git, repoId, p, push, head)).get(head)!;
    for (const mr of bySource.filter((m) => m.head_sha !== push.after)) {
      const { forced, newCommits } = await describe(mr.head_sha);
      const data = { mr_number: mr.number, mr_title: mr.title, before: push.before, after: push.after, new_commits: newCommits, forced };
      changes.push({
        mr_id: mr.id,
        from_state: 'open',
        set: { head_sha: push.after },
        activities: [{ user_id: pusher, action: 'push_mr', data }],
        events: (after) => [lifecycleEvent('synchronize', after, repo, push.sender, push.requestId, { before: push.before, after: push.after, forced })],
      });
    }
    const merges: MergeRequestChange[] = [];
    const containing = new Map<string, Promise<boolean>>();
    const inTarget = (head: string) => containing.get(head) ?? containing.set(head, contains(git, repoId, push.after, head)).get(head)!;
    for (const mr of byTarget) {
      if (!(await inTarget(mr.head_sha))) continue;
      merges.push({
        mr_id: mr.id,
        from_state: 'open',
        set: { state: 'merged', merged_sha: mr.head_sha, merged_by: pusher },
        activities: [{ user_id: pusher, action: 'merge_mr', data: { mr_number: mr.number, mr_title: mr.title, merged_sha: mr.head_sha } }],
        // seed §6 payload exactly, as for a merge through the API
        events: (after) => [mergeRequestEvent(after, repo, push.requestId)],
        unless_merging: true,
      });
    }
    // Only a plain push merges by itself (docs/decisions/following-source-branch.md): the push a merge through the API
    // makes merges that one merge request alone, as the seed's merge procedure says.
    if (merges.length > 0 && !(await deps.store.isMergeResult(repoId, branch, push.after))) changes.push(...merges);
  }
  if (changes.length === 0) return 'nothing';
  const applied = await deps.store.applyEvent(event.id, repoId, changes);
  if (applied) deps.relay.kick();
  await deps.announce?.(shard, repoId);
  return applied ? 'applied' : 'duplicate';
}

/** The source branch is gone: recorded (activity `push_mr`, `deleted`), the head kept. */
function sourceDeleted(mr: MergeRequest, push: { before: string; after: string }, pusher: string | null): MergeRequestChange {
  return {
    mr_id: mr.id,
    from_state: 'open',
    set: {},
    activities: [{ user_id: pusher, action: 'push_mr', data: { mr_number: mr.number, mr_title: mr.title, before: push.before, after: push.after, new_commits: 0, forced: false, deleted: true } }],
    events: () => [],
  };
}

/**
 * `forced`: the old head is not in the new history (the push payload's own flag when git-storage
 * sends one). A branch created again under the name compares with the merge request's head, so
 * replacing a branch by deleting and pushing it again is seen as the force push it is.
 * `new_commits`: `git rev-list <old>..<new>` counted.
 */
async function describePush(git: GitPort, repoId: string, p: PushFields, push: { before: string; after: string }, head: string) {
  const created = push.before === ZERO_OID;
  const old = created ? head : push.before;
  const forced = !created && typeof p.forced === 'boolean' ? p.forced : !(await contains(git, repoId, push.after, old));
  let newCommits = Array.isArray(p.commits) ? p.commits.length : 0;
  try {
    newCommits = (await git.compare(repoId, old, push.after, 1)).ahead_by;
  } catch (err) {
    // An old git-storage without Compare (or a head git no longer has): the commits the push
    // brought are the best count left.
    if (!(err instanceof AppError) || !['unavailable', 'not_found', 'validation'].includes(err.kind)) throw err;
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
