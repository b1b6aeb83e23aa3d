import { describe, expect, it } from '@jest/globals';
import type { MergeRequestDetail, MergeRequestWithAuthor } from '@githost/api-types';
import { giteaIdOf } from '@githost/gitea-ids';
import { giteaPullListJson, giteaPullState, sortPulls, toGiteaChangedFile, toGiteaPull, type PullContext } from './map-pull.js';
import { userMapper } from './repo-context.js';
import { headBranchOf, toCreateMergeRequest, toMergeBody, toUpdateMergeRequest } from './map-requests.js';

const ctx: PullContext = {
  publicUrl: 'https://git.example',
  owner: 'alice',
  name: 'app',
  repoId: '6f1c1b5e-0000-4000-8000-000000000001',
  repository: { id: 42 },
  user: (u) => ({ login: u ?? 'Ghost' }),
};

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

const listed: MergeRequestWithAuthor = {
  id: 'mr-uuid',
  repo_id: ctx.repoId,
  number: 7,
  title: 'Bump x',
  description: null,
  author_id: 'u1',
  author_username: 'bob',
  source_branch: 'renovate/x',
  target_branch: 'main',
  source_sha: A,
  head_sha: B,
  state: 'open',
  merged_sha: null,
  merged_by: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-02T10:00:00.000Z',
};

describe('toGiteaPull', () => {
  it('maps a listed open merge request field by field', () => {
    const pr = toGiteaPull(ctx, listed);
    expect(pr).toEqual({
      id: giteaIdOf('pull_request', `${ctx.repoId}#7`),
      url: 'https://git.example/alice/app/-/merge-requests/7',
      number: 7,
      user: { login: 'bob' },
      title: 'Bump x',
      body: '',
      labels: [],
      milestone: null,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      requested_reviewers_teams: [],
      state: 'open',
      draft: false,
      is_locked: false,
      comments: 0,
      review_comments: 0,
      html_url: 'https://git.example/alice/app/-/merge-requests/7',
      diff_url: 'https://git.example/alice/app/-/merge-requests/7.diff',
      patch_url: 'https://git.example/alice/app/-/merge-requests/7.patch',
      mergeable: true,
      merged: false,
      merged_at: null,
      merge_commit_sha: null,
      merged_by: null,
      allow_maintainer_edit: false,
      base: { label: 'main', ref: 'main', sha: '', repo_id: 42, repo: { id: 42 } },
      head: { label: 'renovate/x', ref: 'renovate/x', sha: B, repo_id: 42, repo: { id: 42 } },
      merge_base: '',
      due_date: null,
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00.000Z',
      closed_at: null,
      pin_order: 0,
    });
  });

  it('a merged one is closed with merged, merged_at and the merge commit', () => {
    const pr = toGiteaPull(ctx, { ...listed, state: 'merged', merged_sha: C, merged_by: 'u2' });
    expect(pr).toMatchObject({ state: 'closed', merged: true, merged_at: listed.updated_at, merge_commit_sha: C, closed_at: listed.updated_at, mergeable: false });
  });

  it('a listed one with githost\'s merge facts: mergeable as checked (false when a branch is gone), merged_by the merger', () => {
    expect(toGiteaPull(ctx, listed, { mergeable: false, merged_by_username: null, requested_reviewers: [] }).mergeable).toBe(false);
    expect(toGiteaPull(ctx, listed, { mergeable: null, merged_by_username: null, requested_reviewers: [] }).mergeable).toBe(false);
    expect(toGiteaPull(ctx, listed, { mergeable: true, merged_by_username: null, requested_reviewers: [] })).toMatchObject({ mergeable: true, merged_by: null });
    const merged = { ...listed, state: 'merged', merged_sha: C, merged_by: 'u2' };
    expect(toGiteaPull(ctx, merged, { mergeable: null, merged_by_username: 'alice', requested_reviewers: [] })).toMatchObject({ mergeable: false, merged: true, merged_by: { login: 'alice' } });
    expect(toGiteaPull(ctx, listed, { mergeable: true, merged_by_username: null, requested_reviewers: ['rita', 'alice'] }).requested_reviewers).toEqual([{ login: 'rita' }, { login: 'alice' }]);
    // A merger whose account is gone is Gitea's ghost, as a gone author is.
    expect(toGiteaPull(ctx, merged, { mergeable: null, merged_by_username: null, requested_reviewers: [] }).merged_by).toEqual({ login: 'Ghost' });
  });

  it('a detail brings live tips, mergeability, counts and comments', () => {
    const detail: MergeRequestDetail = {
      ...listed,
      source_sha: C,
      target_sha: A,
      diff_truncated: false,
      mergeable: false,
      diff: [
        { path: 'a.txt', old_path: null, status: 'added', old_mode: null, new_mode: '100644', old_sha: null, new_sha: A, additions: 3, deletions: 0, binary: false, patch: '' },
        { path: 'b.txt', old_path: 'b.txt', status: 'modified', old_mode: '100644', new_mode: '100644', old_sha: A, new_sha: B, additions: 1, deletions: 2, binary: false, patch: '' },
      ],
      comments: [
        { id: 'c1', mr_id: 'mr-uuid', author_id: 'u1', author_username: 'bob', body: 'hi', file_path: null, line_number: null, diff_side: null, created_at: listed.created_at },
        { id: 'c2', mr_id: 'mr-uuid', author_id: 'u1', author_username: 'bob', body: 'here', file_path: 'a.txt', line_number: 2, diff_side: 'new', created_at: listed.created_at },
      ],
    };
    const pr = toGiteaPull(ctx, detail);
    expect(pr).toMatchObject({ mergeable: false, additions: 4, deletions: 2, changed_files: 2, comments: 1, review_comments: 1 });
    expect(pr.head.sha).toBe(C);
    expect(pr.base.sha).toBe(A);
    expect(toGiteaPull(ctx, { ...detail, mergeable: true }).mergeable).toBe(true);
  });

  it('a deleted author is handed to the user mapping as null', () => {
    expect(toGiteaPull(ctx, { ...listed, author_username: null }).user).toEqual({ login: 'Ghost' });
  });

  it('states', () => {
    expect(['open', 'closed', 'merged'].map(giteaPullState)).toEqual(['open', 'closed', 'closed']);
  });
});

describe('toGiteaChangedFile', () => {
  it('maps a renamed file with links at the head', () => {
    const f = toGiteaChangedFile(ctx, C, { path: 'docs/new name.md', old_path: 'docs/old.md', status: 'renamed', old_mode: '100644', new_mode: '100644', old_sha: A, new_sha: B, additions: 1, deletions: 1, binary: false, patch: '' });
    expect(f).toEqual({
      filename: 'docs/new name.md',
      previous_filename: 'docs/old.md',
      status: 'renamed',
      additions: 1,
      deletions: 1,
      changes: 2,
      html_url: `https://git.example/alice/app/-/blob/${C}/docs/new%20name.md`,
      contents_url: `https://git.example/api/v1/repos/alice/app/contents/docs/new%20name.md?ref=${C}`,
      raw_url: `https://git.example/alice/app/-/raw/${C}/docs/new%20name.md`,
    });
  });
});

describe('request bodies', () => {
  it('create: head and base become source and target; empty units pass', () => {
    expect(toCreateMergeRequest({ head: 'feature', base: 'main', title: 'T', body: 'B', labels: [], milestone: 0, assignees: [] }, 'alice')).toEqual({
      request: { title: 'T', description: 'B', source_branch: 'feature', target_branch: 'main' },
      reviewers: [],
    });
    expect(toCreateMergeRequest({ head: 'alice:feature', base: 'main', title: 'T', reviewers: ['carol'] }, 'alice')).toEqual({
      request: { title: 'T', description: null, source_branch: 'feature', target_branch: 'main' },
      reviewers: ['carol'],
    });
  });

  it('create: labels, a milestone or another head repository are refused', () => {
    expect(() => toCreateMergeRequest({ head: 'f', base: 'main', title: 'T', labels: [1] }, 'alice')).toThrow('githost has no labels');
    expect(() => toCreateMergeRequest({ head: 'f', base: 'main', title: 'T', milestone: 3 }, 'alice')).toThrow('githost has no milestones');
    expect(() => headBranchOf('mallory:f', 'alice')).toThrow('head repository not found');
  });

  it('edit: only given fields; body "" clears; base becomes target_branch', () => {
    expect(toUpdateMergeRequest({ title: 'New', body: '', base: 'dev', state: 'closed' })).toEqual({ title: 'New', description: null, target_branch: 'dev', state: 'closed' });
    expect(toUpdateMergeRequest({})).toEqual({});
    expect(() => toUpdateMergeRequest({ state: 'merged' })).toThrow('state must be open or closed');
  });

  it('merge: styles map to strategies; rebase and scheduled merges are unsupported', () => {
    expect(toMergeBody({})).toEqual({ body: { strategy: 'merge-commit' } });
    expect(toMergeBody({ Do: 'squash', MergeTitleField: ' Title ', MergeMessageField: 'msg', head_commit_id: A, delete_branch_after_merge: true })).toEqual({
      body: { strategy: 'squash', commit_title: 'Title', commit_message: 'msg', sha: A, delete_source_branch: true },
    });
    expect(toMergeBody({ Do: 'fast-forward-only' })).toEqual({ body: { strategy: 'fast-forward-only' } });
    expect(toMergeBody({ Do: 'rebase' })).toEqual({ unsupported: 'rebase' });
    expect(toMergeBody({ Do: 'rebase-merge' })).toEqual({ unsupported: 'rebase-merge' });
    expect(toMergeBody({ Do: 'constructor' })).toEqual({ unsupported: 'constructor' });
    expect(toMergeBody({ Do: 'merge', merge_when_checks_succeed: true })).toEqual({ unsupported: 'merge_when_checks_succeed' });
  });
});

describe('sortPulls', () => {
  const mr = (number: number, created: string, updated: string): MergeRequestWithAuthor => ({ ...listed, number, created_at: `2026-11-0${created}T00:00:00.000Z`, updated_at: `2026-11-0${updated}T00:00:00.000Z` });
  const list = [mr(1, '1', '5'), mr(2, '2', '3'), mr(3, '3', '4')];
  it('orders as Gitea\'s sort names ask; anything else newest first', () => {
    expect(sortPulls(list, undefined).map((m) => m.number)).toEqual([3, 2, 1]);
    expect(sortPulls(list, 'priority').map((m) => m.number)).toEqual([3, 2, 1]);
    expect(sortPulls(list, 'oldest').map((m) => m.number)).toEqual([1, 2, 3]);
    expect(sortPulls(list, 'recentupdate').map((m) => m.number)).toEqual([1, 3, 2]);
    expect(sortPulls(list, 'leastupdate').map((m) => m.number)).toEqual([2, 3, 1]);
    expect(sortPulls(list, 'constructor').map((m) => m.number)).toEqual([3, 2, 1]);
  });
});

describe('giteaPullListJson', () => {
  it('when a page is written with the Repository serialised once, then its bytes are JSON.stringify\'s of the same pull requests, whatever their titles hold', () => {
    const repository = { id: 42, name: 'app', full_name: 'alice/app', description: 'a "quoted" \\ \u2028 repo', permissions: { admin: true, push: true, pull: true } };
    const full = { ...ctx, repository };
    const merged = { ...listed, number: 8, state: 'merged' as const, title: '"repo":{"id":1} \u0000 </script>', merged_sha: C };
    const pulls = [toGiteaPull(full, listed, { mergeable: true, merged_by_username: null, requested_reviewers: ['carol'] }), toGiteaPull(full, merged, { mergeable: null, merged_by_username: 'dave', requested_reviewers: [] })];
    expect(giteaPullListJson(pulls, repository).equals(Buffer.from(JSON.stringify(pulls)))).toBe(true);
    expect(giteaPullListJson([pulls[0]!], repository).toString()).toBe(JSON.stringify([pulls[0]]));
    expect(giteaPullListJson([], repository).toString()).toBe('[]');
  });
});

describe('userMapper', () => {
  it('when a name is mapped again, then the same Gitea user; a deleted account is the ghost user', () => {
    const user = userMapper('https://git.example');
    expect(user('bob')).toBe(user('bob'));
    expect(user('bob')).toMatchObject({ login: 'bob' });
    expect(user(null)).toMatchObject({ login: 'Ghost', id: -1 });
    expect(user('carol')).not.toBe(user('bob'));
  });
});
