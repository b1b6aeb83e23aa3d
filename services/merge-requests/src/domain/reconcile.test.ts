import { beforeEach, describe, expect, it } from '@jest/globals';
import { BASE, FakeUsers, gitWithFeature, MemoryStore, SRC, type FakeGit } from '../../test/support/in-memory.js';
import { createMergeRequest } from './merge-requests.js';
import type { Deps } from './merge-requests.js';
import { reconcileMergeIntents, type ReconcileDeps } from './reconcile.js';

const LATER = 'l'.repeat(40);
const repo = { id: 'r1', owner: 'alice', name: 'proj', shard: 'shard-1', private: false, permission: 'write' as const };

let store: MemoryStore;
let git: FakeGit;
let deps: Deps & ReconcileDeps;
let shardsAsked: string[];

beforeEach(async () => {
  store = new MemoryStore();
  git = gitWithFeature();
  git.commit(LATER, SRC);
  shardsAsked = [];
  const gitOn = (shard: string) => {
    shardsAsked.push(shard);
    return git;
  };
  deps = { store, git, gitOn, users: new FakeUsers(), relay: { kick: () => undefined } };
  const mr = await createMergeRequest(deps, repo, { user_id: 'u1', username: 'u' }, { title: 'T', source_branch: 'feature', target_branch: 'main' });
  await store.claimMerge({ mr_id: mr.id, repo, merger_id: 'u1', request_id: 'r' });
});

/** The claim as a merge makes it: with the planned move. */
const plan = async () => {
  await store.releaseMerge(store.mrs[0]!.id);
  await store.claimMerge({ mr_id: store.mrs[0]!.id, repo, merger_id: 'u1', request_id: 'r', plan: { target_ref: 'refs/heads/main', old_oid: BASE, new_oid: SRC, strategy: 'fast-forward' } });
};

describe('reconcileMergeIntents', () => {
  it('when the ref moved to the result but the transaction never ran, then the merge is completed with its event', async () => {
    await plan();
    git.branches.set('main', SRC);
    const out = await reconcileMergeIntents(deps, 0);
    expect(out.completed).toEqual([store.mrs[0]!.id]);
    expect(store.mrs[0]).toMatchObject({ state: 'merged', merged_sha: SRC, merged_by: 'u1' });
    expect(store.outbox.map((e) => (e.payload as { action: string }).action)).toEqual(['opened', 'merged']);
    // The intent remembers the repository's shard: recovery reads the ref there, not on a default.
    expect(new Set(shardsAsked)).toEqual(new Set(['shard-1']));
  });

  it('when the ref has moved past the result since, then the merge is still completed', async () => {
    await plan();
    git.branches.set('main', LATER);
    expect((await reconcileMergeIntents(deps, 0)).completed).toHaveLength(1);
  });

  it('when the ref never moved, then the intent is dropped and the merge request stays open', async () => {
    await plan();
    const out = await reconcileMergeIntents(deps, 0);
    expect(out.dropped).toHaveLength(1);
    expect(store.mrs[0]!.state).toBe('open');
    expect(store.intents.size).toBe(0);
  });

  it('when the intent was only claimed, never planned, then it is dropped', async () => {
    expect((await reconcileMergeIntents(deps, 0)).dropped).toHaveLength(1);
  });

  it('when the intent is younger than the grace period, then it is left alone', async () => {
    await plan();
    git.branches.set('main', SRC);
    expect(await reconcileMergeIntents(deps, 60_000)).toEqual({ completed: [], dropped: [], deferred: [] });
    expect(store.intents.size).toBe(1);
  });

  it('when git-storage does not answer, then the intent is deferred to the next run', async () => {
    await plan();
    git.resolveBranch = () => Promise.reject(new Error('down'));
    expect((await reconcileMergeIntents(deps, 0)).deferred).toHaveLength(1);
    expect(store.intents.size).toBe(1);
  });
});
