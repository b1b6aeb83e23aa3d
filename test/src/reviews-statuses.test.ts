import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createBranchedRepo, createUsers, eventually, git, startReceiver, startTestGithost, type BranchedRepo, type TestGithost, type TestUser } from './support/index.js';

/**
 * Reviews, commit statuses and the protected merge through the gateway (services/merge-requests/README.md#reviews,
 * "Commit statuses", "Branch and tag protection"), on branches pushed with the real git client.
 */
describe.each([['embedded' as const], ['real' as const]])('reviews and commit statuses end to end on the %s backend', (backend) => {
  let gh: TestGithost;
  let alice: TestUser; // owner
  let bob: TestUser; // write collaborator, author of the merge requests
  let carol: TestUser; // write collaborator, the reviewer
  let rita: TestUser; // read collaborator
  let ci: TestUser; // write collaborator whose token CI uses
  let eve: TestUser; // no access
  let counter = 0;

  beforeAll(async () => {
    gh = await startTestGithost({ backend });
    [alice, bob, carol, rita, ci, eve] = await createUsers(gh, 'alice', 'bob', 'carol', 'rita', 'ci-bot', 'eve');
  }, 240_000);
  afterAll(async () => gh?.stop());

  type Repo = BranchedRepo;

  /** alice/<name>: main and feature/x one commit ahead; bob has opened merge request #1. */
  async function repo(opts: { private?: boolean } = {}): Promise<Repo> {
    const r = await createBranchedRepo(gh, alice, `rs${++counter}`, {
      private: opts.private,
      collaborators: { bob: 'write', carol: 'write', 'ci-bot': 'write', rita: 'read' },
      mainFiles: { 'README.md': 'hello\n' },
      branch: 'feature/x',
      branchFiles: { 'a.txt': 'one\n' },
    });
    const mr = await api(gh, 'POST', `${r.path}/merge-requests`, { token: bob.token, body: { title: 'Add a', source_branch: 'feature/x', target_branch: 'main' } });
    expect(mr.status).toBe(201);
    return r;
  }

  const tip = async (r: Repo, ref: string) => (await git(r.wd, 'ls-remote', r.remote, ref)).split('\t')[0] ?? '';
  const review = (r: Repo, who: TestUser, body: Record<string, unknown>) => api(gh, 'POST', `${r.path}/merge-requests/1/reviews`, { token: who.token, body });
  const status = (r: Repo, sha: string, body: Record<string, unknown>, who = ci) => api(gh, 'POST', `${r.path}/statuses/${sha}`, { token: who.token, body });
  const detail = async (r: Repo) => (await api(gh, 'GET', `${r.path}/merge-requests/1`)).body;
  const merge = (r: Repo) => api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token });
  async function pushFeature(r: Repo, content: string): Promise<string> {
    const sha = await commitFiles(r.wd, { 'a.txt': content }, 'more work');
    await git(r.wd, 'push', '-q', r.remote, 'feature/x');
    return sha;
  }

  describe('reviews', () => {
    it('when a writer approves, then 201 on the head, the detail counts it, and after a push the approval is stale and no longer counts', async () => {
      const r = await repo();
      const head = await tip(r, 'refs/heads/feature/x');
      const res = await review(r, carol, { event: 'approve', body: 'LGTM' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ author_id: carol.id, author_username: 'carol', state: 'approved', body: 'LGTM', commit_sha: head, stale: false });
      expect((await detail(r)).review_summary).toEqual({ approvals: 1, changes_requested: 0 });

      const newHead = await pushFeature(r, 'one\ntwo\n');
      expect((await detail(r)).review_summary).toEqual({ approvals: 0, changes_requested: 0 });
      await review(r, carol, { event: 'request_changes', body: 'two is wrong' });
      expect((await detail(r)).review_summary).toEqual({ approvals: 0, changes_requested: 1 });
      const list = await api(gh, 'GET', `${r.path}/merge-requests/1/reviews`);
      expect(list.body.map((v: { author_username: string; state: string; commit_sha: string; stale: boolean }) => [v.author_username, v.state, v.commit_sha, v.stale])).toEqual([
        ['carol', 'approved', head, true],
        ['carol', 'changes_requested', newHead, false],
      ]);
    });

    it('when the feature branch is rebased and force-pushed, then the approval given before is stale and the CI status of the old head no longer shows', async () => {
      const r = await repo();
      const head = await tip(r, 'refs/heads/feature/x');
      await review(r, carol, { event: 'approve' });
      await status(r, head, { state: 'success', context: 'ci/build' });
      expect(await detail(r)).toMatchObject({ review_summary: { approvals: 1, changes_requested: 0 }, status: { state: 'success', sha: head } });
      await git(r.wd, 'commit', '-q', '--amend', '-m', 'feature work, reworded');
      await git(r.wd, 'push', '-q', '-f', r.remote, 'feature/x');
      const rewritten = await tip(r, 'refs/heads/feature/x');
      expect(rewritten).not.toBe(head);
      expect(await detail(r)).toMatchObject({ review_summary: { approvals: 0, changes_requested: 0 }, status: { state: 'pending', sha: rewritten, total_count: 0 } });
      expect((await api(gh, 'GET', `${r.path}/merge-requests/1/reviews`)).body.map((v: { stale: boolean }) => v.stale)).toEqual([true]);
    });

    it('when a reader approves, then it is listed but does not count; the author cannot approve their own', async () => {
      const r = await repo();
      expect((await review(r, rita, { event: 'approve' })).status).toBe(201);
      expect(await review(r, bob, { event: 'approve' })).toMatchObject({ status: 400, body: { error: 'Can not approve your own merge request' } });
      expect((await review(r, bob, { event: 'comment', body: 'ready when you are' })).status).toBe(201);
      expect((await detail(r)).review_summary).toEqual({ approvals: 0, changes_requested: 0 });
      expect((await api(gh, 'GET', `${r.path}/merge-requests/1/reviews`)).body.map((v: { author_username: string; state: string }) => [v.author_username, v.state])).toEqual([
        ['rita', 'approved'],
        ['bob', 'commented'],
      ]);
    });

    it('when the event is unknown, the body is missing, the number unknown, or the caller anonymous, then 4xx and nothing is recorded', async () => {
      const r = await repo();
      expect(await review(r, carol, { event: 'lgtm' })).toMatchObject({ status: 400, body: { error: 'event must be one of: approve, request_changes, comment' } });
      expect(await review(r, carol, { event: 'request_changes' })).toMatchObject({ status: 400, body: { error: 'Review body is required when event is "request_changes"' } });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/7/reviews`, { token: carol.token, body: { event: 'approve' } })).toMatchObject({ status: 404, body: { error: 'Merge request #7 not found' } });
      expect((await api(gh, 'POST', `${r.path}/merge-requests/1/reviews`, { body: { event: 'approve' } })).status).toBe(401);
      expect((await api(gh, 'GET', `${r.path}/merge-requests/1/reviews`)).body).toEqual([]);
    });

    it('when the repository is private, then someone who cannot read it gets 404 for reviews and statuses', async () => {
      const r = await repo({ private: true });
      const sha = await tip(r, 'refs/heads/main');
      expect(await review(r, eve, { event: 'approve' })).toMatchObject({ status: 404, body: { error: 'Repository not found' } });
      expect((await api(gh, 'GET', `${r.path}/merge-requests/1/reviews`, { token: eve.token })).status).toBe(404);
      expect((await status(r, sha, { state: 'success' }, eve)).status).toBe(404);
      expect((await api(gh, 'GET', `${r.path}/commits/main/status`, { token: eve.token })).status).toBe(404);
      expect((await api(gh, 'GET', `${r.path}/commits/main/status`, { token: rita.token })).status).toBe(200);
    });
  });

  describe('commit statuses', () => {
    it('when CI posts statuses with its token, then they are listed newest first and combined per context, anonymously on a public repository', async () => {
      const r = await repo();
      const sha = await tip(r, 'refs/heads/feature/x');
      const first = await status(r, sha, { state: 'pending', context: 'ci/build', description: 'Building', target_url: 'https://ci.example/builds/1' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ sha, state: 'pending', context: 'ci/build', description: 'Building', target_url: 'https://ci.example/builds/1', creator: { username: 'ci-bot' } });
      expect((await api(gh, 'GET', `${r.path}/commits/feature/x/status`)).body).toMatchObject({ state: 'pending', sha, total_count: 1 });
      await status(r, sha, { state: 'success', context: 'ci/build' });
      expect((await api(gh, 'GET', `${r.path}/commits/feature/x/status`)).body).toMatchObject({ state: 'success', total_count: 1 });
      await status(r, sha, { state: 'error', context: 'ci/lint' });
      const combined = await api(gh, 'GET', `${r.path}/commits/${sha}/status`);
      expect(combined.body).toMatchObject({ state: 'failure', sha, total_count: 2 });
      expect(combined.body.statuses.map((s: { context: string; state: string }) => [s.context, s.state])).toEqual([['ci/lint', 'error'], ['ci/build', 'success']]);
      const list = await api(gh, 'GET', `${r.path}/commits/feature/x/statuses`);
      expect(list.body.map((s: { context: string; state: string }) => [s.context, s.state])).toEqual([['ci/lint', 'error'], ['ci/build', 'success'], ['ci/build', 'pending']]);
      expect((await detail(r)).status).toMatchObject({ state: 'failure', sha, total_count: 2 });
      expect(await api(gh, 'GET', `${r.path}/commits/main/status`)).toMatchObject({ status: 200, body: { state: 'pending', total_count: 0, statuses: [] } });
    });

    it('when the sha is not a commit of the repository, the state unknown, or the caller only reads, then 4xx and nothing is stored', async () => {
      const r = await repo();
      const other = await repo();
      const foreign = await pushFeature(other, 'elsewhere\n');
      const sha = await tip(r, 'refs/heads/main');
      expect(await status(r, foreign, { state: 'success' })).toMatchObject({ status: 404, body: { error: `Commit not found: ${foreign}` } });
      expect(await status(r, 'main', { state: 'success' })).toMatchObject({ status: 404, body: { error: 'Commit not found: main' } });
      expect(await status(r, sha, { state: 'green' })).toMatchObject({ status: 400, body: { error: 'state must be one of: pending, success, failure, error' } });
      expect(await status(r, sha, { state: 'success' }, rita)).toMatchObject({ status: 400, body: { error: 'You do not have write access to this repository' } });
      expect((await status(r, sha, { state: 'success' }, { ...ci, token: '' })).status).toBe(401);
      expect(await api(gh, 'GET', `${r.path}/commits/nope/statuses`)).toMatchObject({ status: 404, body: { error: 'Ref not found: nope' } });
      expect((await api(gh, 'GET', `${r.path}/commits/${sha}/statuses`)).body).toEqual([]);
    });
  });

  describe('events', () => {
    it('when a review and a status are posted, then webhooks on merge_request_review and status receive the documented payloads', async () => {
      const r = await repo();
      const receiver = await startReceiver();
      try {
        const hook = await api(gh, 'POST', `${r.path}/webhooks`, { token: alice.token, body: { url: `${receiver.url}/hook`, events: 'merge_request_review,status' } });
        expect(hook.status).toBe(201);
        const head = await tip(r, 'refs/heads/feature/x');
        const given = await review(r, carol, { event: 'request_changes', body: 'needs tests' });
        await status(r, head, { state: 'failure', context: 'ci/build', description: 'Tests failed', target_url: 'https://ci.example/2' });
        const received = await eventually(() => (receiver.received.length >= 2 ? receiver.received : undefined), 30_000);
        const name = r.path.split('/').at(-1)!;
        const repository = { owner: 'alice', name, full_name: `alice/${name}` };
        expect(received.find((d) => d.event === 'merge_request_review')!.body).toEqual({
          event: 'merge_request_review',
          action: 'submitted',
          repository,
          sender: { username: 'carol' },
          merge_request: { number: 1, title: 'Add a', state: 'open' },
          review: { id: given.body.id, state: 'changes_requested', body: 'needs tests', commit_sha: head },
        });
        expect(received.find((d) => d.event === 'status')!.body).toEqual({
          event: 'status', sha: head, state: 'failure', context: 'ci/build', description: 'Tests failed', target_url: 'https://ci.example/2', repository, sender: { username: 'ci-bot' },
        });
      } finally {
        await receiver.close();
      }
    });
  });

  describe('protected merges', () => {
    const protect = async (r: Repo, rule: Record<string, unknown>) => {
      const res = await api(gh, 'PUT', `${r.path}/branch-protections/main`, { token: alice.token, body: rule });
      expect(res.status).toBe(201); // created
    };

    it('when main requires ci/build, then the merge is 409 until CI posts success on the head, and nothing moves before', async () => {
      const r = await repo();
      await protect(r, { required_status_checks: ['ci/build'] });
      const before = await tip(r, 'refs/heads/main');
      expect(await merge(r)).toMatchObject({ status: 409, body: { error: 'Required status check "ci/build" is not successful' } });
      const head = await tip(r, 'refs/heads/feature/x');
      await status(r, head, { state: 'pending', context: 'ci/build' });
      expect((await merge(r)).status).toBe(409);
      expect(await tip(r, 'refs/heads/main')).toBe(before);
      await status(r, head, { state: 'success', context: 'ci/build' });
      expect(await merge(r)).toMatchObject({ status: 200, body: { merged: true, sha: head } });
    });

    it('when main requires one approval, then the merge is 409 until a writer approves the current head', async () => {
      const r = await repo();
      await protect(r, { required_approvals: 1 });
      await review(r, rita, { event: 'approve' });
      expect(await merge(r)).toMatchObject({ status: 409, body: { error: '1 approving review required' } });
      await review(r, carol, { event: 'approve' });
      const head = await pushFeature(r, 'one\nmore\n');
      expect(await merge(r)).toMatchObject({ status: 409, body: { error: '1 approving review required' } });
      await review(r, carol, { event: 'approve' });
      expect(await merge(r)).toMatchObject({ status: 200, body: { merged: true, sha: head } });
      expect((await detail(r)).state).toBe('merged');
    });
  });
});
