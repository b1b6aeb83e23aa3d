import { beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { unavailable } from '@githost/errors';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { followPush, forgetRepository, type FollowDeps } from './follow-branch.js';
import { addComment, createMergeRequest } from './merge-requests.js';
import type { RepoRef } from './types.js';

const ZERO = '0'.repeat(40);
const BASE = '1'.repeat(40);
const F1 = '2'.repeat(40);
const F2 = '3'.repeat(40);
const REWRITTEN = '4'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'shard-1', private: false, permission: 'write' };

let store: MemoryStore;
let git: FakeGit;
let kicks: number;
let shards: string[];
let deps: FollowDeps;

const push = (ref: string, before: string, after: string, extra: Record<string, unknown> = {}): EventEnvelope => ({
  id: randomUUID(),
  kind: 'push',
  occurred_at: '2026-01-01T00:00:00.000Z',
  repository: { id: 'r1', owner: 'alice', name: 'proj' },
  payload: { event: 'push', ref, before, after, created: before === ZERO, deleted: after === ZERO, repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' }, sender: { username: 'carol' }, commits: [], ...extra },
  request_id: 'push-req',
});
const actions = () => store.outbox.map((e) => (e.payload as { action: string }).action);

beforeEach(async () => {
  store = new MemoryStore();
  git = new FakeGit();
  git.commit(BASE);
  git.commit(F1, BASE);
  git.commit(F2, F1);
  git.commit(REWRITTEN, BASE);
  git.branches.set('main', BASE).set('feature', F1);
  kicks = 0;
  shards = [];
  const users = new FakeUsers([{ id: 'u-carol', username: 'carol', email: 'carol@example.com' }]);
  deps = { store, users, relay: { kick: () => void kicks++ }, gitOn: (shard) => (shards.push(shard), git) };
  await createMergeRequest({ store, git, users }, repo, { user_id: 'u-bob', username: 'bob' }, { title: 'Feature', source_branch: 'feature', target_branch: 'main' });
  store.outbox = [];
});

describe('a push to the source branch', () => {
  it('when fast-forwarded, then head_sha follows (source_sha stays), push_mr with before/after/new commits, a `synchronize` event from the pusher', async () => {
    git.branches.set('feature', F2);
    expect(await followPush(deps, push('refs/heads/feature', F1, F2))).toBe('applied');
    expect(store.mrs[0]).toMatchObject({ state: 'open', source_sha: F1, head_sha: F2 });
    expect(store.activity.at(-1)).toMatchObject({ action: 'push_mr', user_id: 'u-carol', data: { mr_number: 1, mr_title: 'Feature', before: F1, after: F2, new_commits: 1, forced: false } });
    expect(store.outbox).toHaveLength(1);
    expect(store.outbox[0]).toMatchObject({ kind: 'merge_request', request_id: 'push-req' });
    expect(store.outbox[0]!.payload).toMatchObject({ action: 'synchronize', sender: { username: 'carol' }, before: F1, after: F2, forced: false, merge_request: { number: 1, state: 'open', head_sha: F2 } });
    expect(kicks).toBe(1);
    expect(shards).toEqual(['shard-1']); // the repository's shard, stored with its merge requests
  });

  it('when force-pushed (the old head is not in the new history), then the activity and event say forced', async () => {
    await followPush(deps, push('refs/heads/feature', F1, REWRITTEN));
    expect(store.mrs[0]!.head_sha).toBe(REWRITTEN);
    expect(store.activity.at(-1)!.data).toMatchObject({ forced: true, new_commits: 1 });
    expect(store.outbox[0]!.payload).toMatchObject({ action: 'synchronize', forced: true });
  });

  it('when the push payload carries `forced`, then that flag is used', async () => {
    await followPush(deps, push('refs/heads/feature', F1, F2, { forced: true }));
    expect(store.activity.at(-1)!.data).toMatchObject({ forced: true });
  });

  it('when git-storage cannot compare, then the commits the push brought are counted', async () => {
    git.compareFailure = unavailable('Compare is not available yet');
    await followPush(deps, push('refs/heads/feature', F1, F2, { commits: [{}, {}] }));
    expect(store.activity.at(-1)!.data).toMatchObject({ new_commits: 2 });
  });

  it('when the same event comes again, then nothing more is recorded or emitted', async () => {
    const event = push('refs/heads/feature', F1, F2);
    await followPush(deps, event);
    expect(await followPush(deps, event)).toBe('duplicate');
    expect(store.activity.filter((a) => a.action === 'push_mr')).toHaveLength(1);
    expect(store.outbox).toHaveLength(1);
  });

  it('when the head is already the pushed tip (a reopen took it), then nothing is recorded', async () => {
    store.mrs[0]!.head_sha = F2;
    expect(await followPush(deps, push('refs/heads/feature', F1, F2))).toBe('nothing');
    expect(store.outbox).toEqual([]);
  });

  it('when the merge request is closed or merged, then a push to its source changes nothing', async () => {
    store.mrs[0]!.state = 'closed';
    expect(await followPush(deps, push('refs/heads/feature', F1, F2))).toBe('nothing');
    expect(store.mrs[0]!.head_sha).toBe(F1);
  });

  it('when the source branch is deleted, then it stays open (seed §4 step 3 answers the merge) and the deletion is recorded', async () => {
    const before = store.mrs[0]!.updated_at;
    await followPush(deps, push('refs/heads/feature', F1, ZERO));
    expect(store.mrs[0]).toMatchObject({ state: 'open', head_sha: F1, updated_at: before });
    expect(store.activity.at(-1)).toMatchObject({ action: 'push_mr', user_id: 'u-carol', data: { mr_number: 1, before: F1, after: ZERO, deleted: true, new_commits: 0 } });
    expect(store.outbox).toEqual([]);
  });

  it('when the branch is pushed again under the name with other history, then it is followed as a force push', async () => {
    await followPush(deps, push('refs/heads/feature', F1, ZERO));
    await followPush(deps, push('refs/heads/feature', ZERO, REWRITTEN));
    expect(store.mrs[0]!.head_sha).toBe(REWRITTEN);
    expect(store.activity.at(-1)!.data).toMatchObject({ before: ZERO, after: REWRITTEN, forced: true, new_commits: 1 });
    expect(store.outbox[0]!.payload).toMatchObject({ action: 'synchronize', forced: true });
  });

  it('when the pusher has no user record, then the activity has a null user and the event still names them', async () => {
    deps.users = new FakeUsers();
    await followPush(deps, push('refs/heads/feature', F1, F2));
    expect(store.activity.at(-1)!.user_id).toBeNull();
    expect(store.outbox[0]!.payload).toMatchObject({ sender: { username: 'carol' } });
  });
});

describe('a push to the target branch', () => {
  it('when the target now contains the head, then merged by itself: merged_sha the head, merged_by the pusher, merge_mr, exactly the seed event', async () => {
    git.branches.set('main', F1);
    expect(await followPush(deps, push('refs/heads/main', BASE, F1))).toBe('applied');
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: F1, merged_by: 'u-carol' });
    expect(store.activity.at(-1)).toMatchObject({ action: 'merge_mr', user_id: 'u-carol', data: { mr_number: 1, mr_title: 'Feature', merged_sha: F1 } });
    expect(store.outbox).toHaveLength(1);
    expect(store.outbox[0]!.payload).toEqual({
      event: 'merge_request',
      action: 'merged',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'alice' },
      merge_request: { number: 1, title: 'Feature', state: 'merged' },
    });
  });

  it('when a merge commit on the target contains the head, then it is merged too', async () => {
    const merge = git.commit('5'.repeat(40), BASE, F1);
    await followPush(deps, push('refs/heads/main', BASE, merge));
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: F1 });
  });

  it('when the target does not contain the head, then nothing changes', async () => {
    const other = git.commit('6'.repeat(40), BASE);
    expect(await followPush(deps, push('refs/heads/main', BASE, other))).toBe('nothing');
    expect(store.mrs[0]!.state).toBe('open');
  });

  it('when the same event comes again, then exactly one merged event in all', async () => {
    const event = push('refs/heads/main', BASE, F1);
    await followPush(deps, event);
    await followPush(deps, event);
    expect(actions()).toEqual(['merged']);
  });

  it('when a merge through the API is in flight, then the event is refused for now (conflict: the bus brings it again) and nothing changes', async () => {
    await store.claimMerge({ mr_id: store.mrs[0]!.id, repo, merger_id: 'u-x', request_id: null });
    const event = push('refs/heads/main', BASE, F1);
    await expect(followPush(deps, event)).rejects.toMatchObject({ kind: 'conflict' });
    expect(store.mrs[0]!.state).toBe('open');
    expect(await store.wasHandled(event.id)).toBe(false);
  });

  it('when the push is what a merge through the API wrote, then another merge request it contains stays open', async () => {
    await createMergeRequest({ store, git, users: deps.users }, repo, { user_id: 'u-bob', username: 'bob' }, { title: 'Same branches', source_branch: 'feature', target_branch: 'main' });
    Object.assign(store.mrs[0]!, { state: 'merged', merged_sha: F1 });
    expect(await followPush(deps, push('refs/heads/main', BASE, F1))).toBe('nothing');
    expect(store.mrs[1]!.state).toBe('open');
  });

  it('when the target branch is deleted, then the merge request stays open', async () => {
    expect(await followPush(deps, push('refs/heads/main', BASE, ZERO))).toBe('nothing');
    expect(store.mrs[0]!.state).toBe('open');
  });
});

describe('events that concern no merge request', () => {
  it.each([
    ['a tag', push('refs/tags/v1', ZERO, F1)],
    ['another branch', push('refs/heads/other', ZERO, F1)],
    ['a malformed payload', { ...push('refs/heads/feature', F1, F2), payload: { ref: 'refs/heads/feature', before: 'x', after: F2 } }],
  ])('when the push is to %s, then nothing', async (_what, event) => {
    expect(await followPush(deps, event)).toBe('nothing');
    expect(store.mrs[0]).toMatchObject({ state: 'open', head_sha: F1 });
  });
});

describe('the lookup', () => {
  it('when a branch no open merge request uses is pushed, then one lookup and nothing more (no handled-event check, no git-storage)', async () => {
    store.wasHandled = () => Promise.reject(new Error('wasHandled must not be called'));
    deps.gitOn = () => {
      throw new Error('git-storage must not be reached');
    };
    expect(await followPush(deps, push('refs/heads/other', F1, F2))).toBe('nothing');
    expect(store.branchLookups).toEqual([['r1', 'other']]);
  });

  it('when the branch is the target of one merge request and the source of another, then one lookup serves both: the first merged, the second synchronized', async () => {
    git.branches.set('release', BASE);
    await createMergeRequest({ store, git, users: deps.users }, repo, { user_id: 'u-bob', username: 'bob' }, { title: 'Release', source_branch: 'main', target_branch: 'release' });
    store.outbox = [];
    store.branchLookups = [];
    git.branches.set('main', F2);
    expect(await followPush(deps, push('refs/heads/main', BASE, F2))).toBe('applied');
    expect(store.branchLookups).toEqual([['r1', 'main']]);
    expect(store.mrs.map((m) => [m.number, m.state, m.head_sha, m.merged_sha])).toEqual([
      [1, 'merged', F1, F1],
      [2, 'open', F2, null],
    ]);
    expect(actions().sort()).toEqual(['merged', 'synchronize']);
  });

  it('when a merge request of another repository uses the branch, then this repository\'s push does not touch it', async () => {
    await createMergeRequest({ store, git, users: deps.users }, { ...repo, id: 'r2' }, { user_id: 'u-bob', username: 'bob' }, { title: 'Other', source_branch: 'feature', target_branch: 'main' });
    git.branches.set('feature', F2);
    expect(await followPush(deps, push('refs/heads/feature', F1, F2))).toBe('applied');
    expect(store.mrs.map((m) => [m.repo_id, m.head_sha])).toEqual([
      ['r1', F2],
      ['r2', F1],
    ]);
  });
});

describe('repository_deleted', () => {
  it('when the repository is deleted, then its merge requests, comments and activity go, other repositories stay', async () => {
    const users = new FakeUsers();
    await addComment({ store, git, users }, repo, { user_id: 'u-bob', username: 'bob' }, '1', { body: 'hi' });
    await createMergeRequest({ store, git, users }, { ...repo, id: 'r2' }, { user_id: 'u-bob', username: 'bob' }, { title: 'Other', source_branch: 'feature', target_branch: 'main' });
    await forgetRepository(deps, { ...push('refs/heads/x', ZERO, F1), kind: 'repository_deleted' });
    expect(store.mrs.map((m) => m.repo_id)).toEqual(['r2']);
    expect(store.comments).toEqual([]);
    expect(store.activity.map((a) => a.repo_id)).toEqual(['r2']);
  });
});

describe('one push, many merge requests', () => {
  it('when 2,000 open merge requests share the pushed source (and 2,000 its target), then git is asked once per distinct head and all are changed in one event', async () => {
    for (let i = 0; i < 1999; i++) await createMergeRequest({ store, git, users: deps.users }, repo, { user_id: 'u-bob', username: 'bob' }, { title: `F${i}`, source_branch: 'feature', target_branch: 'main' });
    store.outbox = [];
    const asked: string[] = [];
    const counting = new Proxy(git, {
      get: (target, prop, receiver) => {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          asked.push(String(prop));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    git.branches.set('feature', F2);
    expect(await followPush({ ...deps, gitOn: () => counting }, push('refs/heads/feature', F1, F2))).toBe('applied');
    expect(store.mrs.filter((m) => m.head_sha === F2)).toHaveLength(2000);
    expect(actions()).toEqual(Array.from({ length: 2000 }, () => 'synchronize'));
    expect(asked.length).toBeLessThanOrEqual(2);
    // The target now contains the head of all of them: merged by the push, git asked once again.
    asked.length = 0;
    store.outbox = [];
    git.branches.set('main', F2);
    expect(await followPush({ ...deps, gitOn: () => counting }, push('refs/heads/main', BASE, F2))).toBe('applied');
    expect(store.mrs.filter((m) => m.state === 'merged')).toHaveLength(2000);
    expect(asked).toEqual(['isAncestor']);
  });
});
