import { beforeEach, describe, expect, it } from '@jest/globals';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { updateMergeRequest, type LifecycleContext, type LifecycleDeps } from './lifecycle.js';
import { addComment, createMergeRequest } from './merge-requests.js';
import type { Caller, RepoRef } from './types.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'read' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };
const carol: Caller = { user_id: 'u-carol', username: 'carol' };
const asBob: LifecycleContext = { repo, caller: bob, requestId: 'req-1' };

let store: MemoryStore;
let git: FakeGit;
let kicks: number;
let deps: LifecycleDeps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: { kind: string; message: string }) => ({ kind: e.kind, message: e.message }));
const actions = () => store.outbox.map((e) => `${e.kind}:${(e.payload as { action: string }).action}`);

beforeEach(async () => {
  store = new MemoryStore();
  git = new FakeGit();
  git.branches.set('main', A).set('feature', B);
  kicks = 0;
  deps = { store, git, users: new FakeUsers(), relay: { kick: () => void kicks++ } };
  await createMergeRequest(deps, repo, bob, { title: 'Add feature', description: 'first', source_branch: 'feature', target_branch: 'main' }, 'req-0');
});

describe('create', () => {
  it('when created, then head_sha is the source tip and an `opened` event (sender the author) is written with it', () => {
    expect(store.mrs[0]).toMatchObject({ source_sha: B, head_sha: B });
    expect(store.outbox).toHaveLength(1);
    expect(store.outbox[0]).toMatchObject({ kind: 'merge_request', request_id: 'req-0', repository: { id: 'r1', owner: 'alice', name: 'proj' } });
    expect(store.outbox[0]!.payload).toEqual({
      event: 'merge_request',
      action: 'opened',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'bob' },
      merge_request: { number: 1, title: 'Add feature', state: 'open', description: 'first', source_branch: 'feature', target_branch: 'main', source_sha: B, head_sha: B },
    });
  });
});

describe('comment event', () => {
  it('when a comment is added, then a `merge_request_comment` event with the comment is written and the relay kicked', async () => {
    const c = await addComment(deps, repo, carol, '1', { body: 'nit', file_path: 'a.txt', line_number: 2, diff_side: 'new' }, 'req-9');
    expect(store.outbox.at(-1)).toMatchObject({ kind: 'merge_request_comment', request_id: 'req-9' });
    expect(store.outbox.at(-1)!.payload).toEqual({
      event: 'merge_request_comment',
      action: 'created',
      repository: { owner: 'alice', name: 'proj', full_name: 'alice/proj' },
      sender: { username: 'carol' },
      merge_request: { number: 1, title: 'Add feature', state: 'open' },
      comment: { id: c.id, body: 'nit', file_path: 'a.txt', line_number: 2, diff_side: 'new' },
    });
    expect(kicks).toBe(2);
  });
});

describe('PATCH: who may change a merge request', () => {
  it('when the author (read access only) closes it, then it is closed', async () => {
    expect((await updateMergeRequest(deps, asBob, '1', { state: 'closed' })).state).toBe('closed');
  });

  it('when a writer who is not the author closes it, then it is closed', async () => {
    expect((await updateMergeRequest(deps, { ...asBob, caller: carol, repo: { ...repo, permission: 'write' } }, '1', { state: 'closed' })).state).toBe('closed');
  });

  it('when a reader who is not the author tries, then 400 naming who may, and nothing changes', async () => {
    expect(await rejection(updateMergeRequest(deps, { ...asBob, caller: carol }, '1', { state: 'closed' }))).toEqual({ kind: 'validation', message: 'Only the author or users with write access can change this merge request' });
    expect(store.mrs[0]!.state).toBe('open');
    expect(actions()).toEqual(['merge_request:opened']);
  });

  it('when the repository is private and unreadable, then 404 `Repository not found`', async () => {
    expect(await rejection(updateMergeRequest(deps, { ...asBob, repo: { ...repo, private: true, permission: 'none' } }, '1', { state: 'closed' }))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when anonymous, then 401', async () => {
    expect((await rejection(updateMergeRequest(deps, { ...asBob, caller: null }, '1', { state: 'closed' })))?.kind).toBe('unauthenticated');
  });

  it('when the number is unknown, then 404 `Merge request #<n> not found`', async () => {
    expect(await rejection(updateMergeRequest(deps, asBob, '5', { state: 'closed' }))).toEqual({ kind: 'not_found', message: 'Merge request #5 not found' });
  });
});

describe('PATCH: target_branch retargets an open merge request', () => {
  it('when the author retargets it, then the target changes, `update_mr` records it and an `edited` event carries changes.target_branch', async () => {
    git.branches.set('dev', C);
    const mr = await updateMergeRequest(deps, asBob, '1', { target_branch: 'dev' });
    expect(mr.target_branch).toBe('dev');
    expect(store.activity.at(-1)).toMatchObject({ action: 'update_mr', data: { mr_number: 1, changes: { target_branch: { from: 'main', to: 'dev' } } } });
    expect(actions()).toEqual(['merge_request:opened', 'merge_request:edited']);
    expect(store.outbox.at(-1)!.payload).toMatchObject({ action: 'edited', changes: { target_branch: { from: 'main' } }, merge_request: { target_branch: 'dev' } });
  });

  it('when the target is missing, the source itself, or the merge request is not open, then refused and nothing changes', async () => {
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { target_branch: 'nope' }))).toEqual({ kind: 'not_found', message: 'Branch not found: nope' });
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { target_branch: 'feature' }))).toEqual({ kind: 'validation', message: 'Source and target branches must be different' });
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { target_branch: '' }))).toEqual({ kind: 'validation', message: 'target_branch must be a non-empty string' });
    await updateMergeRequest(deps, asBob, '1', { state: 'closed' });
    git.branches.set('dev', C);
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { target_branch: 'dev' }))).toEqual({ kind: 'conflict', message: 'Merge request is not open' });
    expect(store.mrs[0]!.target_branch).toBe('main');
  });

  it('when the target is already that branch, then nothing is recorded', async () => {
    await updateMergeRequest(deps, asBob, '1', { target_branch: 'main' });
    expect(actions()).toEqual(['merge_request:opened']);
  });
});

describe('PATCH: bad input changes nothing', () => {
  it.each([
    [{}, 'Nothing to change: give title, description or state'],
    [null, 'Nothing to change: give title, description or state'],
    [{ other: 1 }, 'Nothing to change: give title, description or state'],
    [{ state: 'merged' }, 'state must be "open" or "closed"'],
    [{ state: 'Closed' }, 'state must be "open" or "closed"'],
    [{ title: '   ' }, 'title must be a non-empty string'],
    [{ title: 5 }, 'title must be a non-empty string'],
    [{ title: 'x'.repeat(256) }, 'Title must be at most 255 characters'],
    [{ description: 7 }, 'description must be a string'],
    [{ description: 'x'.repeat(65_537) }, 'Description must be at most 65536 characters'],
  ])('when the body is %j, then 400 %s', async (body, message) => {
    expect(await rejection(updateMergeRequest(deps, asBob, '1', body))).toEqual({ kind: 'validation', message });
    expect(store.mrs[0]).toMatchObject({ state: 'open', title: 'Add feature', description: 'first' });
    expect(store.activity).toHaveLength(1);
  });
});

describe('PATCH: edit', () => {
  it('when title and description change, then one update_mr activity with what changed and one `edited` event with changes.<field>.from', async () => {
    const mr = await updateMergeRequest(deps, asBob, '1', { title: 'Better title', description: null });
    expect(mr).toMatchObject({ title: 'Better title', description: null, state: 'open' });
    expect(store.activity.at(-1)).toMatchObject({ action: 'update_mr', user_id: 'u-bob', data: { mr_number: 1, mr_title: 'Better title', changes: { title: { from: 'Add feature', to: 'Better title' }, description: { from: 'first', to: null } } } });
    expect(actions()).toEqual(['merge_request:opened', 'merge_request:edited']);
    expect(store.outbox[1]!.payload).toMatchObject({ action: 'edited', sender: { username: 'bob' }, merge_request: { number: 1, title: 'Better title', state: 'open' }, changes: { title: { from: 'Add feature' }, description: { from: 'first' } } });
    expect(kicks).toBe(2);
  });

  it('when the values asked for are already there, then 200 with the record and nothing recorded', async () => {
    const mr = await updateMergeRequest(deps, asBob, '1', { title: 'Add feature', state: 'open' });
    expect(mr.title).toBe('Add feature');
    expect(store.activity).toHaveLength(1);
    expect(actions()).toEqual(['merge_request:opened']);
  });

  it('when a merged merge request is retitled, then that is allowed (GitHub allows it)', async () => {
    store.mrs[0]!.state = 'merged';
    expect((await updateMergeRequest(deps, asBob, '1', { title: 'Renamed' })).title).toBe('Renamed');
  });
});

describe('PATCH: close and reopen', () => {
  it('when closed, then close_mr activity and a `closed` event with the acting user as sender', async () => {
    await updateMergeRequest(deps, { ...asBob, caller: carol, repo: { ...repo, permission: 'write' } }, '1', { state: 'closed' });
    expect(store.activity.at(-1)).toMatchObject({ action: 'close_mr', user_id: 'u-carol', data: { mr_number: 1, mr_title: 'Add feature' } });
    expect(store.outbox.at(-1)!.payload).toMatchObject({ action: 'closed', sender: { username: 'carol' }, merge_request: { state: 'closed' } });
  });

  it('when edited and closed at once, then `edited` then `closed`, both recorded', async () => {
    await updateMergeRequest(deps, asBob, '1', { title: 'Abandoned', state: 'closed' });
    expect(store.activity.slice(1).map((a) => a.action)).toEqual(['update_mr', 'close_mr']);
    expect(actions()).toEqual(['merge_request:opened', 'merge_request:edited', 'merge_request:closed']);
  });

  it('when reopened, then head_sha is the source tip now, reopen_mr activity and a `reopened` event', async () => {
    await updateMergeRequest(deps, asBob, '1', { state: 'closed' });
    git.branches.set('feature', C);
    const mr = await updateMergeRequest(deps, asBob, '1', { state: 'open' });
    expect(mr).toMatchObject({ state: 'open', source_sha: B, head_sha: C });
    expect(store.activity.at(-1)).toMatchObject({ action: 'reopen_mr', data: { mr_number: 1, head_sha: C } });
    expect(actions().at(-1)).toBe('merge_request:reopened');
  });

  it('when reopening and the source branch is gone, then 404 `Branch not found: <source>` and it stays closed', async () => {
    await updateMergeRequest(deps, asBob, '1', { state: 'closed' });
    git.branches.delete('feature');
    git.branches.delete('main');
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { state: 'open' }))).toEqual({ kind: 'not_found', message: 'Branch not found: feature' });
    expect(store.mrs[0]!.state).toBe('closed');
  });

  it('when reopening and the target branch is gone, then 404 `Branch not found: <target>`', async () => {
    await updateMergeRequest(deps, asBob, '1', { state: 'closed' });
    git.branches.delete('main');
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { state: 'open' }))).toEqual({ kind: 'not_found', message: 'Branch not found: main' });
  });

  it('when the merge request is merged, then neither closing nor reopening: 409 and nothing recorded', async () => {
    store.mrs[0]!.state = 'merged';
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { state: 'closed' }))).toEqual({ kind: 'conflict', message: 'Merge request is already merged' });
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { state: 'open' }))).toEqual({ kind: 'conflict', message: 'Merge request is already merged' });
    expect(store.activity).toHaveLength(1);
  });

  it('when a merge of it is in flight, then closing is refused (409) and it stays open', async () => {
    await store.claimMerge({ mr_id: store.mrs[0]!.id, repo, merger_id: 'u-x', request_id: null });
    expect((await rejection(updateMergeRequest(deps, asBob, '1', { state: 'closed' })))?.kind).toBe('conflict');
    expect(store.mrs[0]!.state).toBe('open');
  });

  it('when it was merged between the read and the write, then 409 `Merge request is already merged`', async () => {
    const original = store.applyChange.bind(store);
    store.applyChange = async (change) => {
      store.mrs[0]!.state = 'merged';
      return original(change);
    };
    expect(await rejection(updateMergeRequest(deps, asBob, '1', { title: 'late' }))).toEqual({ kind: 'conflict', message: 'Merge request is already merged' });
  });
});
