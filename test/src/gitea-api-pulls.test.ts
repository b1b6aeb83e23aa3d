import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Api } from 'gitea-js';
import { api, commitFiles, createBranchedRepo, createUsers, git, startTestGithost, giteaClient, giteaFailure, type BranchedRepo, type TestGithost, type TestUser } from './support/index.js';

/**
 * The Gitea-compatible API's pull requests, reviews, review requests and commit statuses, called
 * with gitea-js (the client generated from Gitea's swagger) through the gateway, each answer
 * checked field by field against Gitea's documented shapes (services/gitea-api/README.md).
 */

type Refusal = { status: number; body: { message?: string; url?: string } };
/** What gitea-js rejected with (its status and Gitea's error body). */
const refusal = (p: Promise<unknown>) => giteaFailure(p) as Promise<Refusal>;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('Gitea API: pull requests, reviews and statuses (gitea-js)', () => {
  let gh: TestGithost;
  let alice: TestUser; // owner
  let bob: TestUser; // write collaborator, author of the pull requests
  let rita: TestUser; // read collaborator
  let eve: TestUser; // no access
  let r: BranchedRepo;
  let repoIntId: number;
  const as = (u: TestUser | null): Api<unknown> => giteaClient(gh, u?.token);
  /** githost's public address, which Gitea's links and error bodies name. */
  const pub = () => `http://localhost:${gh.port}`;

  beforeAll(async () => {
    gh = await startTestGithost();
    [alice, bob, rita, eve] = await createUsers(gh, 'alice', 'bob', 'rita', 'eve');
    r = await createBranchedRepo(gh, alice, 'app', {
      collaborators: { bob: 'write', rita: 'read' },
      mainFiles: { 'README.md': 'hello\n' },
      branch: 'feature/x',
      branchFiles: { 'a.txt': 'one\n' },
    });
    // Two more heads for the list, and a second base.
    await git(r.wd, 'push', '-q', r.remote, 'feature/x:refs/heads/feature/y', 'feature/x:refs/heads/feature/z', 'main:refs/heads/dev');
  }, 240_000);
  afterAll(async () => gh?.stop());

  describe('pull requests', () => {
    it('when bob opens one, then 201 with Gitea\'s PullRequest: number, poster, branches with their tips, mergeable, not merged', async () => {
      const res = await as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'feature/x', base: 'main', title: 'Add a', body: 'Why: tests' });
      expect(res.status).toBe(201);
      const pr = res.data;
      expect(pr).toMatchObject({
        number: 1,
        title: 'Add a',
        body: 'Why: tests',
        state: 'open',
        draft: false,
        is_locked: false,
        merged: false,
        merged_at: null,
        merge_commit_sha: null,
        mergeable: true,
        labels: [],
        milestone: null,
        assignees: [],
        requested_reviewers: [],
        additions: 1,
        deletions: 0,
        changed_files: 1,
        comments: 0,
        closed_at: null,
        html_url: `${pub()}/alice/app/-/merge-requests/1`,
        url: `${pub()}/alice/app/-/merge-requests/1`,
        diff_url: `${pub()}/alice/app/-/merge-requests/1.diff`,
      });
      expect(pr.user).toMatchObject({ login: 'bob', username: 'bob' });
      repoIntId = pr.base!.repo_id!;
      expect(Number.isSafeInteger(repoIntId) && repoIntId > 0).toBe(true);
      expect(pr.head).toMatchObject({ label: 'feature/x', ref: 'feature/x', sha: r.head, repo_id: repoIntId });
      expect(pr.base).toMatchObject({ label: 'main', ref: 'main', sha: r.base, repo_id: repoIntId });
      expect(pr.head!.repo).toMatchObject({ id: repoIntId, full_name: 'alice/app' });
      expect(Number.isSafeInteger(pr.id) && pr.id! > 0).toBe(true);
      expect(pr.created_at).toMatch(ISO);
      expect(pr.updated_at).toMatch(ISO);
      // The same id from the single and the list answers.
      expect((await as(bob).repos.repoGetPullRequest('alice', 'app', 1)).data.id).toBe(pr.id);
    });

    it('when the same head and base are opened again, then 409; the same branch on both sides 422; a missing branch 404', async () => {
      expect(await refusal(as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'feature/x', base: 'main', title: 'again' }))).toMatchObject({
        status: 409,
        body: { message: expect.stringContaining('pull request already exists for these targets') },
      });
      expect((await refusal(as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'main', base: 'main', title: 'same' })))?.status).toBe(422);
      expect(await refusal(as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'nope', base: 'main', title: 'missing' }))).toMatchObject({ status: 404, body: { message: 'Branch not found: nope' } });
      expect((await refusal(as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'feature/y', base: 'main', title: 'labelled', labels: [3] })))?.status).toBe(422);
    });

    it('when listed with page and limit, then pages with X-Total-Count and Link, newest first; state and sort filter', async () => {
      await as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'feature/y', base: 'main', title: 'Second' });
      await as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'feature/z', base: 'main', title: 'Third' });
      const first = await as(null).repos.repoListPullRequests('alice', 'app', { state: 'open', limit: 2, page: 1 });
      expect(first.data.map((p) => p.number)).toEqual([3, 2]);
      expect(first.headers.get('x-total-count')).toBe('3');
      const link = first.headers.get('link') ?? '';
      expect(link).toContain('rel="next"');
      expect(link).toContain('page=2');
      expect(link).toContain('rel="last"');
      const second = await as(null).repos.repoListPullRequests('alice', 'app', { state: 'open', limit: 2, page: 2 });
      expect(second.data.map((p) => p.number)).toEqual([1]);
      expect(second.headers.get('link')).toContain('rel="prev"');
      expect((await as(null).repos.repoListPullRequests('alice', 'app', { state: 'open', sort: 'oldest' })).data.map((p) => p.number)).toEqual([1, 2, 3]);
      expect((await as(null).repos.repoListPullRequests('alice', 'app', { state: 'closed' })).data).toEqual([]);
      const listed = (await as(null).repos.repoListPullRequests('alice', 'app', {})).data.find((p) => p.number === 1)!;
      expect(listed).toMatchObject({ number: 1, title: 'Add a', state: 'open', head: { ref: 'feature/x', sha: r.head }, base: { ref: 'main' }, user: { login: 'bob' } });
      expect(await refusal(as(null).repos.repoListPullRequests('alice', 'app', { state: 'merged' as 'open' }))).toMatchObject({ status: 422 });
    });

    it('when the files and commits are asked for, then Gitea\'s ChangedFile and Commit, each commit with its stats and files', async () => {
      const files = await as(null).repos.repoGetPullRequestFiles('alice', 'app', 1);
      expect(files.data).toEqual([
        expect.objectContaining({ filename: 'a.txt', status: 'added', additions: 1, deletions: 0, changes: 1, raw_url: `${pub()}/alice/app/-/raw/${r.head}/a.txt` }),
      ]);
      expect(files.headers.get('x-total-count')).toBe('1');
      const commits = await as(null).repos.repoGetPullRequestCommits('alice', 'app', 1);
      expect(commits.data.map((c) => c.sha)).toEqual([r.head]);
      expect(commits.data[0]!.commit).toMatchObject({ message: expect.stringContaining('feature work') });
      // As Gitea's GetPullRequestCommits: stats always, files and verification unless false.
      expect(commits.data.map((c) => [c.stats, c.files, c.commit?.verification?.reason])).toEqual([
        [{ total: 1, additions: 1, deletions: 0 }, [{ filename: 'a.txt', status: 'added' }], 'gpg.error.not_signed_commit'],
      ]);
      expect(commits.headers.get('x-total-count')).toBe('1');
      const off = await as(null).repos.repoGetPullRequestCommits('alice', 'app', 1, { files: false, verification: false });
      expect(off.data.map((c) => [c.stats, c.files, c.commit?.verification])).toEqual([[{ total: 1, additions: 1, deletions: 0 }, null, null]]);
    });

    it('when edited, then 201 with the new title, body, base and state; a reader who is not the author gets 403', async () => {
      const edited = await as(bob).repos.repoEditPullRequest('alice', 'app', 2, { title: 'Second, retitled', body: 'now with a body', base: 'dev' });
      expect(edited.status).toBe(201);
      expect(edited.data).toMatchObject({ number: 2, title: 'Second, retitled', body: 'now with a body', base: { ref: 'dev' }, state: 'open' });
      const closed = await as(bob).repos.repoEditPullRequest('alice', 'app', 2, { state: 'closed' });
      expect(closed.data).toMatchObject({ state: 'closed', merged: false });
      expect(closed.data.closed_at).toMatch(ISO);
      expect((await as(null).repos.repoListPullRequests('alice', 'app', { state: 'closed' })).data.map((p) => p.number)).toEqual([2]);
      expect((await as(bob).repos.repoEditPullRequest('alice', 'app', 2, { state: 'open' })).data).toMatchObject({ state: 'open', closed_at: null });
      expect(await refusal(as(rita).repos.repoEditPullRequest('alice', 'app', 2, { title: 'mine now' }))).toMatchObject({ status: 403 });
      expect(await refusal(as(bob).repos.repoEditPullRequest('alice', 'app', 2, { base: 'nope' }))).toMatchObject({ status: 404, body: { message: 'Branch not found: nope' } });
      expect(await refusal(as(bob).repos.repoEditPullRequest('alice', 'app', 99, { title: 'x' }))).toMatchObject({ status: 404 });
    });

    it('when a pull request is looked up by base and head, then the one from that head into that base; another owner or a retargeted base 404', async () => {
      // gitea-js encodes the head as one segment; Gitea reads the rest of the path, slashes and all.
      const byPath = async (base: string, head: string) => {
        const res = await fetch(`${gh.url}/api/v1/repos/alice/app/pulls/${base}/${head}`, { headers: { authorization: `token ${bob.token}` } });
        return { status: res.status, body: (await res.json()) as { number?: number } & Array<{ filename: string }> };
      };
      expect((await as(null).repos.repoGetPullRequestByBaseHead('alice', 'app', 'main', 'feature/x')).data).toMatchObject({ number: 1, head: { ref: 'feature/x' }, base: { ref: 'main' } });
      expect([(await byPath('dev', 'alice:feature/y')).body.number, (await byPath('dev', 'alice/app:feature/y')).body.number]).toEqual([2, 2]);
      expect((await byPath('main', 'feature/y')).status).toBe(404);
      expect((await byPath('main', 'bob:feature/x')).status).toBe(404);
      // The index routes keep their paths.
      expect((await byPath('1', 'files')).body.map((f) => f.filename)).toEqual(['a.txt']);
    });
  });

  describe('reviews and review requests', () => {
    it('when alice approves and comments on lines, then PullReviews with Gitea\'s states, listed and found by id', async () => {
      const approved = await as(alice).repos.repoCreatePullReview('alice', 'app', 1, { event: 'APPROVED', body: 'LGTM' });
      expect(approved.status).toBe(200);
      expect(approved.data).toMatchObject({
        state: 'APPROVED',
        body: 'LGTM',
        commit_id: r.head,
        stale: false,
        dismissed: false,
        comments_count: 0,
        user: { login: 'alice' },
        pull_request_url: `${pub()}/alice/app/-/merge-requests/1`,
      });
      expect(approved.data.submitted_at).toMatch(ISO);
      const commented = await as(rita).repos.repoCreatePullReview('alice', 'app', 1, { event: 'COMMENT', body: 'a thought', comments: [{ path: 'a.txt', body: 'this line', new_position: 1 }] });
      expect(commented.data).toMatchObject({ state: 'COMMENT', comments_count: 1, user: { login: 'rita' } });
      const listed = await as(null).repos.repoListPullReviews('alice', 'app', 1);
      expect(listed.data.map((v) => [v.state, v.user?.login])).toEqual([['APPROVED', 'alice'], ['COMMENT', 'rita']]);
      expect(listed.headers.get('x-total-count')).toBe('2');
      expect((await as(null).repos.repoGetPullReview('alice', 'app', 1, approved.data.id!)).data).toEqual(approved.data);
      const detail = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(detail.body.comments).toEqual([expect.objectContaining({ body: 'this line', file_path: 'a.txt', line_number: 1, diff_side: 'new' })]);
    });

    it('when a review is pending, by the author, or unknown, then refused (422, 404)', async () => {
      expect(await refusal(as(alice).repos.repoCreatePullReview('alice', 'app', 1, { body: 'draft' }))).toMatchObject({ status: 422, body: { message: expect.stringContaining('no pending reviews') } });
      expect((await refusal(as(bob).repos.repoCreatePullReview('alice', 'app', 1, { event: 'APPROVED' })))?.status).toBe(422);
      expect((await refusal(as(null).repos.repoGetPullReview('alice', 'app', 1, 12345)))?.status).toBe(404);
    });

    it('when bob asks alice and rita to review, then 201 REQUEST_REVIEW reviews; an unknown user 404, teams and the author 422', async () => {
      const res = await as(bob).repos.repoCreatePullReviewRequests('alice', 'app', 1, { reviewers: ['alice', 'rita'] });
      expect(res.status).toBe(201);
      expect(res.data.map((v) => [v.state, v.user?.login])).toEqual([['REQUEST_REVIEW', 'alice'], ['REQUEST_REVIEW', 'rita']]);
      expect((await refusal(as(bob).repos.repoCreatePullReviewRequests('alice', 'app', 1, { reviewers: ['nobody-here'] })))?.status).toBe(404);
      expect((await refusal(as(bob).repos.repoCreatePullReviewRequests('alice', 'app', 1, { team_reviewers: ['core'] })))?.status).toBe(422);
      expect((await refusal(as(bob).repos.repoCreatePullReviewRequests('alice', 'app', 1, { reviewers: ['bob'] })))?.status).toBe(422);
      // A reader who is neither the author nor a writer may not ask.
      expect((await refusal(as(rita).repos.repoCreatePullReviewRequests('alice', 'app', 1, { reviewers: ['alice'] })))?.status).toBe(403);
    });

    it('when reviews are asked for, then githost keeps them: the pull request lists them until each reviews or is withdrawn', async () => {
      const requested = async () => (await as(null).repos.repoGetPullRequest('alice', 'app', 1)).data.requested_reviewers?.map((u) => u.login);
      expect(await requested()).toEqual(['alice', 'rita']);
      const listed = (await as(null).repos.repoListPullRequests('alice', 'app', { state: 'open' })).data.find((p) => p.number === 1)!;
      expect(listed.requested_reviewers?.map((u) => u.login)).toEqual(['alice', 'rita']);
      const own = await api(gh, 'GET', `${r.path}/merge-requests/1/requested-reviewers`);
      expect([own.status, own.body.map((v: { username: string; requested_by_username: string }) => [v.username, v.requested_by_username])]).toEqual([200, [['alice', 'bob'], ['rita', 'bob']]]);
      // alice's review answers her request (Gitea and GitHub do the same); rita's is withdrawn.
      await as(alice).repos.repoCreatePullReview('alice', 'app', 1, { event: 'COMMENT', body: 'seen' });
      expect(await requested()).toEqual(['rita']);
      expect((await as(bob).repos.repoDeletePullReviewRequests('alice', 'app', 1, { reviewers: ['rita'] })).status).toBe(204);
      expect(await requested()).toEqual([]);
    });
  });

  describe('commit statuses', () => {
    it('when CI reports, then CommitStatus answers; listed by ref newest first and combined by Gitea\'s worst state', async () => {
      const created = await as(bob).repos.repoCreateStatus('alice', 'app', r.head, { state: 'pending', context: 'ci/build', description: 'building', target_url: 'https://ci.example/1' });
      expect(created.status).toBe(201);
      expect(created.data).toMatchObject({
        status: 'pending',
        context: 'ci/build',
        description: 'building',
        target_url: 'https://ci.example/1',
        url: `${pub()}/api/v1/repos/alice/app/statuses/${r.head}`,
        creator: { login: 'bob' },
      });
      expect(created.data.created_at).toMatch(ISO);
      expect(Number.isSafeInteger(created.data.id)).toBe(true);
      await as(bob).repos.repoCreateStatus('alice', 'app', r.head, { state: 'success', context: 'ci/build' });
      await as(bob).repos.repoCreateStatus('alice', 'app', r.head, { state: 'error', context: 'ci/lint', description: 'crashed' });

      const listed = await as(null).repos.repoListStatusesByRef('alice', 'app', 'feature/x');
      expect(listed.data.map((s) => [s.context, s.status])).toEqual([['ci/lint', 'error'], ['ci/build', 'success'], ['ci/build', 'pending']]);
      expect(listed.headers.get('x-total-count')).toBe('3');
      expect((await as(null).repos.repoListStatusesByRef('alice', 'app', 'feature/x', { sort: 'oldest', limit: 1 })).data.map((s) => s.status)).toEqual(['pending']);
      expect((await as(null).repos.repoListStatuses('alice', 'app', r.head, { state: 'success' })).data.map((s) => s.context)).toEqual(['ci/build']);

      const combined = await as(null).repos.repoGetCombinedStatusByRef('alice', 'app', 'feature/x');
      expect(combined.data).toMatchObject({ state: 'error', sha: r.head, total_count: 2, repository: { id: repoIntId, full_name: 'alice/app' } });
      expect(combined.data.statuses!.map((s) => [s.context, s.status]).sort()).toEqual([['ci/build', 'success'], ['ci/lint', 'error']]);
      // No statuses: Gitea's zero value.
      expect((await as(null).repos.repoGetCombinedStatusByRef('alice', 'app', 'main')).data).toEqual({ state: '', sha: '', total_count: 0, statuses: null, repository: null, commit_url: '', url: '' });
    });

    it('when a reader reports or a state is warning, then 403 and 422; a status on an unknown commit 404', async () => {
      expect((await refusal(as(rita).repos.repoCreateStatus('alice', 'app', r.head, { state: 'success', context: 'x' })))?.status).toBe(403);
      expect(await refusal(as(bob).repos.repoCreateStatus('alice', 'app', r.head, { state: 'warning', context: 'x' }))).toMatchObject({ status: 422, body: { message: expect.stringContaining('no warning state') } });
      expect((await refusal(as(bob).repos.repoCreateStatus('alice', 'app', 'f'.repeat(40), { state: 'success' })))?.status).toBe(404);
    });
  });

  describe('merging', () => {
    it('when a reader merges or asks for rebase, then 405 as Gitea answers; the author\'s merge with Do merge is 200 and the pull request is merged', async () => {
      expect(await refusal(as(rita).repos.repoMergePullRequest('alice', 'app', 1, { Do: 'merge' }))).toMatchObject({ status: 405, body: { message: 'User not allowed to merge PR' } });
      expect(await refusal(as(bob).repos.repoMergePullRequest('alice', 'app', 1, { Do: 'rebase' }))).toMatchObject({
        status: 405,
        body: { message: 'rebase is not allowed an allowed merge style for this repository' },
      });
      expect(await refusal(as(bob).repos.repoMergePullRequest('alice', 'app', 1, { Do: 'merge', head_commit_id: 'e'.repeat(40) }))).toMatchObject({ status: 409, body: { message: 'Head branch was modified' } });
      expect((await as(bob).repos.repoPullRequestIsMerged('alice', 'app', 1).catch((e: Response) => e)).status).toBe(404);

      const merged = await as(bob).repos.repoMergePullRequest('alice', 'app', 1, { Do: 'merge', MergeTitleField: 'Merge a', MergeMessageField: 'with a body', head_commit_id: r.head });
      expect(merged.status).toBe(200);
      const pr = (await as(null).repos.repoGetPullRequest('alice', 'app', 1)).data;
      expect(pr).toMatchObject({ state: 'closed', merged: true, mergeable: false });
      expect(pr.merged_at).toMatch(ISO);
      const mainTip = (await git(r.wd, 'ls-remote', r.remote, 'refs/heads/main')).split('\t')[0];
      expect(pr.merge_commit_sha).toBe(mainTip);
      await git(r.wd, 'fetch', '-q', r.remote, 'main');
      expect(await git(r.wd, 'log', '-1', '--format=%B', mainTip!)).toBe('Merge a\n\nwith a body');
      expect((await as(bob).repos.repoPullRequestIsMerged('alice', 'app', 1)).status).toBe(204);
      expect(await refusal(as(bob).repos.repoMergePullRequest('alice', 'app', 1, { Do: 'merge' }))).toMatchObject({ status: 405, body: { message: 'PR already merged' } });
      // Who merged it, from githost's merge facts, in the single answer and in a list.
      expect(pr.merged_by).toMatchObject({ login: 'bob', username: 'bob' });
      const closed = (await as(null).repos.repoListPullRequests('alice', 'app', { state: 'closed' })).data;
      expect(closed.map((p) => [p.number, p.merged, p.merged_by?.login])).toEqual([[1, true, 'bob']]);
    });

    it('when an open pull request conflicts with its base, then a list answers mergeable false for it and true for a clean one, as the single answer does', async () => {
      // From the old main, a.txt written otherwise than feature/x, which main now has.
      await git(r.wd, 'checkout', '-q', '-b', 'clash', r.base);
      await commitFiles(r.wd, { 'a.txt': 'other\n' }, 'a differently');
      await git(r.wd, 'push', '-q', r.remote, 'HEAD:refs/heads/clash');
      await git(r.wd, 'checkout', '-q', '-');
      const clash = (await as(bob).repos.repoCreatePullRequest('alice', 'app', { head: 'clash', base: 'main', title: 'Clash' })).data;
      expect(clash.mergeable).toBe(false);
      const listed = (await as(null).repos.repoListPullRequests('alice', 'app', { state: 'open' })).data;
      expect(listed.map((p) => [p.number, p.mergeable, p.merged_by])).toEqual([
        [clash.number, false, null],
        [3, true, null],
        [2, true, null],
      ]);
      expect((await as(null).repos.repoGetPullRequest('alice', 'app', 3)).data.mergeable).toBe(true);
      // githost's own answer the list is made of, beside the spec: the same facts, in the order asked.
      const facts = await api(gh, 'GET', `${r.path}/merge-requests/merge-facts?numbers=${clash.number},1,3,99`, { token: rita.token });
      expect([facts.status, facts.body]).toEqual([200, [
        { number: clash.number, mergeable: false, merged_by_username: null, requested_reviewers: [] },
        { number: 1, mergeable: null, merged_by_username: 'bob', requested_reviewers: [] },
        { number: 3, mergeable: true, merged_by_username: null, requested_reviewers: [] },
      ]]);
      expect((await api(gh, 'GET', `${r.path}/merge-requests/merge-facts?numbers=0`, { token: rita.token })).status).toBe(400);
      await as(bob).repos.repoEditPullRequest('alice', 'app', clash.number!, { state: 'closed' });
    });

    it('when a closed pull request is merged, then 404; squash and fast-forward-only styles merge', async () => {
      await as(bob).repos.repoEditPullRequest('alice', 'app', 2, { state: 'closed' });
      expect((await refusal(as(bob).repos.repoMergePullRequest('alice', 'app', 2, { Do: 'merge' })))?.status).toBe(404);

      // feature/y is behind main now (main has the merge of feature/x): a fast-forward cannot be.
      expect(await refusal(as(bob).repos.repoMergePullRequest('alice', 'app', 3, { Do: 'fast-forward-only' }))).toMatchObject({ status: 409, body: { message: 'Fast-forward merge is not possible' } });
      await commitFiles(r.wd, { 'z.txt': 'zed\n' }, 'zed');
      await git(r.wd, 'push', '-q', r.remote, 'HEAD:refs/heads/feature/z');
      expect((await as(bob).repos.repoMergePullRequest('alice', 'app', 3, { Do: 'squash' })).status).toBe(200);
      expect((await as(null).repos.repoGetPullRequest('alice', 'app', 3)).data).toMatchObject({ merged: true, state: 'closed' });
    });
  });

  describe('refusals told by githost\'s structured answers, not its messages', () => {
    it('when branch protection is unmet, then 405 not ready (githost\'s reason: branch_protection); a reader author\'s bad edit is 422 (a reader\'s edit of another\'s is 403, above)', async () => {
      const p = await createBranchedRepo(gh, alice, 'guarded', { collaborators: { bob: 'write', rita: 'read' }, mainFiles: { 'README.md': 'g\n' }, branch: 'topic', branchFiles: { 't.txt': 't\n' } });
      expect((await api(gh, 'PUT', `${p.path}/branch-protections/main`, { token: alice.token, body: { required_status_checks: ['ci'] } })).status).toBe(201);
      const pr = (await as(rita).repos.repoCreatePullRequest('alice', 'guarded', { head: 'topic', base: 'main', title: 'Topic' })).data;
      // githost's own answer: the spec's error, and the reason beside it.
      const direct = await api(gh, 'POST', `${p.path}/merge-requests/${pr.number}/merge`, { token: bob.token });
      expect([direct.status, direct.body]).toEqual([409, { error: 'Required status check "ci" is not successful', reason: 'branch_protection' }]);
      expect(await refusal(as(bob).repos.repoMergePullRequest('alice', 'guarded', pr.number!, { Do: 'merge' }))).toMatchObject({
        status: 405,
        body: { message: 'PR is not ready to be merged: Required status check "ci" is not successful' },
      });
      // rita (read) wrote it: githost's 400 is her body's fault, not her permission's.
      expect(await refusal(as(rita).repos.repoEditPullRequest('alice', 'guarded', pr.number!, { title: '   ' }))).toMatchObject({ status: 422, body: { message: 'title must be a non-empty string' } });
    });
  });

  describe('paging through many pull requests', () => {
    // 120 merge requests on alice/many, 1..120 opened in order; every fourth closed (30), the rest open (90).
    const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const closedOnes = numbers(1, 120).filter((n) => n % 4 === 0);
    const openOnes = numbers(1, 120).filter((n) => n % 4 !== 0);

    beforeAll(async () => {
      const m = await createBranchedRepo(gh, alice, 'many', { mainFiles: { 'README.md': 'many\n' }, branch: 'f', branchFiles: { 'f.txt': 'f\n' } });
      for (let i = 1; i <= 120; i++) {
        const created = await api(gh, 'POST', `${m.path}/merge-requests`, { token: alice.token, body: { title: `mr ${i}`, source_branch: 'f', target_branch: 'main' } });
        expect([created.status, created.body.number]).toEqual([201, i]);
      }
      for (const n of closedOnes) expect((await api(gh, 'PATCH', `${m.path}/merge-requests/${n}`, { token: alice.token, body: { state: 'closed' } })).status).toBe(200);
    }, 240_000);

    /** Pages 1.. of a Gitea list with limit 50 until an empty one: the numbers, and each page's headers. */
    async function walk(query: { state?: 'open' | 'closed' | 'all'; sort?: 'oldest' | 'recentupdate' }) {
      const pages: { numbers: number[]; total: string | null; link: string }[] = [];
      for (let page = 1; page <= 10; page++) {
        const res = await as(null).repos.repoListPullRequests('alice', 'many', { ...query, limit: 50, page });
        if (res.data.length === 0) break;
        pages.push({ numbers: res.data.map((p) => p.number!), total: res.headers.get('x-total-count'), link: res.headers.get('link') ?? '' });
      }
      return pages;
    }

    it('when state=all is paged with limit 50, then 120 down to 1 exactly once over 3 pages, X-Total-Count 120, Link next/last to page 3', async () => {
      const pages = await walk({ state: 'all' });
      expect(pages.map((p) => p.numbers.length)).toEqual([50, 50, 20]);
      expect(pages.flatMap((p) => p.numbers)).toEqual(numbers(1, 120).reverse());
      expect(pages.map((p) => p.total)).toEqual(['120', '120', '120']);
      const url = (page: number) => `<${pub()}/api/v1/repos/alice/many/pulls?state=all&limit=50&page=${page}>`;
      expect(pages[0]!.link).toBe(`${url(2)}; rel="next",${url(3)}; rel="last"`);
      expect(pages[1]!.link).toBe(`${url(3)}; rel="next",${url(3)}; rel="last",${url(1)}; rel="first",${url(1)}; rel="prev"`);
      expect(pages[2]!.link).toBe(`${url(1)}; rel="first",${url(2)}; rel="prev"`);
    });

    it('when state=open or closed, then each of that state once, newest first, with its count; oldest runs the other way', async () => {
      const open = await walk({ state: 'open' });
      expect(open.flatMap((p) => p.numbers)).toEqual([...openOnes].reverse());
      expect(open.map((p) => p.total)).toEqual(['90', '90']);
      const closed = await walk({ state: 'closed' });
      expect(closed.flatMap((p) => p.numbers)).toEqual([...closedOnes].reverse());
      expect(closed.map((p) => p.total)).toEqual(['30']);
      expect(closed[0]!.link).toBe('');
      expect((await walk({ state: 'all', sort: 'oldest' })).flatMap((p) => p.numbers)).toEqual(numbers(1, 120));
      // Closing moved updated_at: the 30 closed ones are the most recently updated, newest close first.
      expect((await walk({ state: 'all', sort: 'recentupdate' })).flatMap((p) => p.numbers).slice(0, 30)).toEqual([...closedOnes].reverse());
    });

    it('when githost\'s list is paged, then it counts the state (X-Total-Count), which lets a Gitea page read only as deep as it reaches', async () => {
      const own = await api(gh, 'GET', `/api/repos/alice/many/merge-requests?state=open&per_page=10`, { token: alice.token });
      expect([own.status, own.headers.get('x-total-count'), (own.body as unknown[]).length]).toEqual([200, '90', 10]);
      // The spec's answer (no per_page, no cursor) stays without it.
      expect((await api(gh, 'GET', `/api/repos/alice/many/merge-requests?state=open`, { token: alice.token })).headers.get('x-total-count')).toBeNull();
    });

    it('when the default limit is used, then pages of 30: page 3 of the 90 open holds the oldest 30 and page 4 is empty', async () => {
      const third = await as(null).repos.repoListPullRequests('alice', 'many', { state: 'open', page: 3 });
      expect(third.data.map((p) => p.number)).toEqual(openOnes.slice(0, 30).reverse());
      expect(third.headers.get('x-total-count')).toBe('90');
      expect((await as(null).repos.repoListPullRequests('alice', 'many', { state: 'open', page: 4 })).data).toEqual([]);
    });
  });

  describe('access', () => {
    it('when a stranger or anonymous asks about a private repository\'s pull requests, then 404 in Gitea\'s error shape', async () => {
      const p = await createBranchedRepo(gh, alice, 'secret', { private: true, mainFiles: { 'README.md': 'x\n' }, branch: 'f', branchFiles: { 'b.txt': 'b\n' } });
      await as(alice).repos.repoCreatePullRequest('alice', 'secret', { head: 'f', base: 'main', title: 'hidden' });
      for (const who of [eve, null]) {
        const refused = await refusal(as(who).repos.repoGetPullRequest('alice', 'secret', 1));
        expect(refused?.status).toBe(404);
        expect(refused?.body.url).toBe(`${pub()}/api/swagger`);
        expect((await refusal(as(who).repos.repoListPullRequests('alice', 'secret', {})))?.status).toBe(404);
        expect((await refusal(as(who).repos.repoGetCombinedStatusByRef('alice', 'secret', 'main')))?.status).toBe(404);
      }
      expect((await refusal(as(eve).repos.repoCreateStatus('alice', 'secret', p.head, { state: 'success' })))?.status).toBe(404);
      expect((await as(alice).repos.repoGetPullRequest('alice', 'secret', 1)).data.title).toBe('hidden');
    });
  });
});
