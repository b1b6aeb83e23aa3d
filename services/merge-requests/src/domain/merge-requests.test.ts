import { beforeEach, describe, expect, it } from '@jest/globals';
import { FakeGit, FakeUsers, MemoryStore } from '../../test/support/in-memory.js';
import { addComment, createMergeRequest, getMergeRequest, listActivity, listMergeRequests, type Deps } from './merge-requests.js';
import type { Caller, RepoRef } from './types.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const repo: RepoRef = { id: 'r1', owner: 'alice', name: 'proj', shard: 'default', private: false, permission: 'read' };
const privateNoAccess: RepoRef = { ...repo, private: true, permission: 'none' };
const bob: Caller = { user_id: 'u-bob', username: 'bob' };
const body = { title: 'Add feature', source_branch: 'feature', target_branch: 'main' };

let store: MemoryStore;
let git: FakeGit;
let deps: Deps;
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: { kind: string; message: string }) => ({ kind: e.kind, message: e.message }));

beforeEach(() => {
  store = new MemoryStore();
  git = new FakeGit();
  git.branches.set('main', A).set('feature', B);
  deps = { store, git, users: new FakeUsers([{ id: 'u-bob', username: 'bob', email: 'bob@example.com' }]) };
});

describe('create (seed §4 merge requests rules 1-4)', () => {
  it('when valid, then an open record with number 1, source_sha and null description, and a create_mr activity', async () => {
    const mr = await createMergeRequest(deps, repo, bob, body);
    expect(mr).toMatchObject({ number: 1, state: 'open', title: 'Add feature', description: null, source_sha: B, author_id: 'u-bob', repo_id: 'r1', merged_sha: null, merged_by: null });
    expect(await listActivity(deps, repo)).toEqual([expect.objectContaining({ action: 'create_mr', user_id: 'u-bob', data: { mr_number: 1, mr_title: 'Add feature' } })]);
  });

  it('when merge requests exist, then the new number is the highest + 1', async () => {
    await createMergeRequest(deps, repo, bob, body);
    await createMergeRequest(deps, repo, bob, body);
    expect((await createMergeRequest(deps, repo, bob, body)).number).toBe(3);
  });

  it('when the source branch is missing, then 404 `Branch not found: <source>` even if the target is missing too', async () => {
    expect(await rejection(createMergeRequest(deps, repo, bob, { ...body, source_branch: 'nope', target_branch: 'gone' }))).toEqual({ kind: 'not_found', message: 'Branch not found: nope' });
  });

  it('when only the target branch is missing, then 404 `Branch not found: <target>`', async () => {
    expect(await rejection(createMergeRequest(deps, repo, bob, { ...body, target_branch: 'gone' }))).toEqual({ kind: 'not_found', message: 'Branch not found: gone' });
  });

  it('when a branch name is not a valid ref name, then `Branch not found` without reaching git', async () => {
    expect(await rejection(createMergeRequest(deps, repo, bob, { ...body, source_branch: '--upload-pack=x' }))).toEqual({ kind: 'not_found', message: 'Branch not found: --upload-pack=x' });
  });

  it('when an open merge request for the same branches exists, then another is still created (rule 4)', async () => {
    await createMergeRequest(deps, repo, bob, body);
    expect((await createMergeRequest(deps, repo, bob, body)).number).toBe(2);
  });

  it('when the caller has only read access, then creating is allowed (rule 4: no write check)', async () => {
    expect((await createMergeRequest(deps, { ...repo, permission: 'read' }, bob, body)).state).toBe('open');
  });

  it('when anonymous, then 401', async () => {
    expect((await rejection(createMergeRequest(deps, repo, null, body)))?.kind).toBe('unauthenticated');
  });

  it('when the repository is private and the caller cannot read it, then 404 `Repository not found` (CONTRACT §3)', async () => {
    expect(await rejection(createMergeRequest(deps, privateNoAccess, bob, body))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });
});

describe('list (rule 5)', () => {
  beforeEach(async () => {
    await createMergeRequest(deps, repo, bob, { ...body, title: 'one' });
    await createMergeRequest(deps, repo, bob, { ...body, title: 'two' });
    store.mrs[0]!.state = 'merged';
  });

  it('when state is omitted, then open ones, each with author_username', async () => {
    expect((await listMergeRequests(deps, repo, undefined)).map((m) => [m.title, m.author_username])).toEqual([['two', 'bob']]);
  });

  it('when state is given, then it matches exactly (case-sensitive, any string)', async () => {
    expect((await listMergeRequests(deps, repo, 'merged')).map((m) => m.title)).toEqual(['one']);
    expect(await listMergeRequests(deps, repo, 'Merged')).toEqual([]);
    expect(await listMergeRequests(deps, repo, 'whatever')).toEqual([]);
  });

  it('when there are more than 50, then the 50 newest, newest first', async () => {
    for (let i = 0; i < 53; i++) await createMergeRequest(deps, repo, bob, { ...body, title: `t${i}` });
    const list = await listMergeRequests(deps, repo, 'open');
    expect(list).toHaveLength(50);
    expect(list[0]!.title).toBe('t52');
    expect(list[49]!.title).toBe('t3');
  });

  it('when the author has no user record, then author_username is null', async () => {
    await createMergeRequest(deps, repo, { user_id: null, username: 'admin' }, { ...body, title: 'by admin' });
    expect((await listMergeRequests(deps, repo, 'open'))[0]).toMatchObject({ title: 'by admin', author_username: null });
  });

  it('when the repository is public and the caller anonymous, then it is listed (seed §5)', async () => {
    expect(await listMergeRequests(deps, { ...repo, permission: 'none' }, 'open')).toHaveLength(1);
  });

  it('when the repository is private and unreadable, then 404', async () => {
    expect((await rejection(listMergeRequests(deps, privateNoAccess, 'open')))?.message).toBe('Repository not found');
  });
});

describe('detail (rule 6)', () => {
  it('when both branches exist, then current tips, the target->source diff, comments with authors and mergeable', async () => {
    await createMergeRequest(deps, repo, bob, body);
    git.branches.set('feature', 'c'.repeat(40));
    git.diffResult = { files: [{ path: 'a.txt', old_path: 'a.txt', status: 'modified', old_mode: '100644', new_mode: '100644', old_sha: '1'.repeat(40), new_sha: '2'.repeat(40), additions: 1, deletions: 0, binary: false, patch: '@@ -1 +1,2 @@\n a\n+b\n' }], truncated: false };
    await addComment(deps, repo, bob, '1', { body: 'looks good' });
    const d = await getMergeRequest(deps, repo, '1');
    expect(d).toMatchObject({ number: 1, author_username: 'bob', source_sha: 'c'.repeat(40), target_sha: A, diff_truncated: false, mergeable: true });
    expect(d.diff).toEqual(git.diffResult.files);
    expect(d.comments).toEqual([expect.objectContaining({ body: 'looks good', author_username: 'bob' })]);
    expect(d).not.toHaveProperty('conflicts');
  });

  it('when the source branch is gone, then source_sha is absent (not null), diff empty and mergeable null', async () => {
    await createMergeRequest(deps, repo, bob, body);
    git.branches.delete('feature');
    const d = await getMergeRequest(deps, repo, '1');
    expect(d).not.toHaveProperty('source_sha');
    expect(d.target_sha).toBe(A);
    expect(d.diff).toEqual([]);
    expect(d.mergeable).toBeNull();
  });

  it('when the target branch is gone, then target_sha is absent and the diff empty', async () => {
    await createMergeRequest(deps, repo, bob, body);
    git.branches.delete('main');
    const d = await getMergeRequest(deps, repo, '1');
    expect(d).not.toHaveProperty('target_sha');
    expect(d.source_sha).toBe(B);
    expect(d.diff).toEqual([]);
  });

  it('when the branches conflict, then mergeable false with the conflicting paths', async () => {
    await createMergeRequest(deps, repo, bob, body);
    git.conflicts = ['README.md'];
    expect(await getMergeRequest(deps, repo, '1')).toMatchObject({ mergeable: false, conflicts: ['README.md'] });
  });

  it('when the diff was capped, then diff_truncated is true', async () => {
    await createMergeRequest(deps, repo, bob, body);
    git.diffResult = { files: [], truncated: true };
    expect((await getMergeRequest(deps, repo, '1')).diff_truncated).toBe(true);
  });

  it('when the number is unknown or not an integer, then 404 `Merge request #<number> not found`', async () => {
    expect(await rejection(getMergeRequest(deps, repo, '7'))).toEqual({ kind: 'not_found', message: 'Merge request #7 not found' });
    expect(await rejection(getMergeRequest(deps, repo, 'abc'))).toEqual({ kind: 'not_found', message: 'Merge request #abc not found' });
  });
});

describe('comments (rule 7)', () => {
  beforeEach(async () => {
    await createMergeRequest(deps, repo, bob, body);
  });

  it('when valid, then the complete record with nulls for omitted optional fields', async () => {
    const c = await addComment(deps, repo, bob, '1', { body: 'hi' });
    expect(c).toMatchObject({ mr_id: store.mrs[0]!.id, author_id: 'u-bob', body: 'hi', file_path: null, line_number: null, diff_side: null });
    expect(typeof c.id).toBe('string');
  });

  it('when the merge request is merged, then comments are still accepted', async () => {
    store.mrs[0]!.state = 'merged';
    expect((await addComment(deps, repo, bob, '1', { body: 'post-merge' })).body).toBe('post-merge');
  });

  it('when the number is unknown, then the same 404 as detail', async () => {
    expect(await rejection(addComment(deps, repo, bob, '9', { body: 'x' }))).toEqual({ kind: 'not_found', message: 'Merge request #9 not found' });
  });

  it('when the body is empty, then `Comment body is required`', async () => {
    expect(await rejection(addComment(deps, repo, bob, '1', { body: '' }))).toEqual({ kind: 'validation', message: 'Comment body is required' });
  });

  it('when anonymous, then 401', async () => {
    expect((await rejection(addComment(deps, repo, null, '1', { body: 'x' })))?.kind).toBe('unauthenticated');
  });
});
