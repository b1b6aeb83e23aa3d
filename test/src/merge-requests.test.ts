import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createBranchedRepo, createUsers, git, gitResult, startTestGithost, type BranchedRepo, type TestGithost, type TestUser } from './support/index.js';

/** Whether `commit` is in the history of `tip` (git exits 1 when not, other codes are errors). */
async function isAncestor(wd: string, commit: string, tip: string): Promise<boolean> {
  const r = await gitResult(wd, 'merge-base', '--is-ancestor', commit, tip);
  if (r.code > 1) throw new Error(`git merge-base failed: ${r.stderr}`);
  return r.code === 0;
}

/**
 * Merge requests through the gateway (seed §4 "Merge requests" rules 1-8 and the merge
 * procedure, CONTRACT §3/§5/§6/§8/§9), on branches pushed with the real git client.
 */
describe.each([['embedded' as const], ['real' as const]])('merge requests end to end on the %s backend', (backend) => {
  let gh: TestGithost;
  let alice: TestUser; // owner
  let bob: TestUser; // no access (public repo: read)
  let carol: TestUser; // write collaborator
  let counter = 0;

  beforeAll(async () => {
    gh = await startTestGithost({ backend });
    [alice, bob, carol] = await createUsers(gh, 'alice', 'bob', 'carol');
  });
  afterAll(async () => gh?.stop());

  type Repo = BranchedRepo;

  /** alice/<name>: main (README, a.txt) and feature one commit ahead (a.txt changed, new.txt). */
  async function repo(opts: { private?: boolean } = {}): Promise<Repo> {
    const r = await createBranchedRepo(gh, alice, `r${++counter}`, {
      private: opts.private,
      collaborators: { carol: 'write' },
      mainFiles: { 'README.md': 'hello\n', 'a.txt': 'one\ntwo\nthree\n' },
      branch: 'feature',
      branchFiles: { 'a.txt': 'one\ntwo\nthree\nfour\n', 'new.txt': 'new\n' },
    });
    await git(r.wd, 'checkout', '-q', 'main');
    return r;
  }

  async function advanceMain(r: Repo, files: Record<string, string>): Promise<string> {
    await git(r.wd, 'checkout', '-q', 'main');
    const sha = await commitFiles(r.wd, files, 'main moves on');
    await git(r.wd, 'push', '-q', r.remote, 'main');
    return sha;
  }

  const remoteTip = async (r: Repo, branch: string): Promise<string> => (await git(r.wd, 'ls-remote', r.remote, `refs/heads/${branch}`)).split('\t')[0] ?? '';
  const open = (r: Repo, token = bob.token, body: Record<string, unknown> = { title: 'Add four', source_branch: 'feature', target_branch: 'main' }) =>
    api(gh, 'POST', `${r.path}/merge-requests`, { token, body });

  describe('create (seed §4 rules 1-4)', () => {
    let r: Repo;
    beforeAll(async () => {
      r = await repo();
    });

    it('when valid, then 201 with the complete record: number 1, null description, the source tip', async () => {
      const res = await open(r);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ number: 1, title: 'Add four', description: null, author_id: bob.id, source_branch: 'feature', target_branch: 'main', state: 'open', merged_sha: null, merged_by: null, source_sha: await remoteTip(r, 'feature') });
      expect(typeof res.body.id).toBe('string');
      expect(typeof res.body.repo_id).toBe('string');
      expect(typeof res.body.created_at).toBe('string');
    });

    it('when another is created for the same branches by a user without write access, then it is accepted with the next number (rule 4)', async () => {
      const res = await open(r, bob.token, { title: 'Again', description: 'why', source_branch: 'feature', target_branch: 'main' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ number: 2, description: 'why' });
    });

    it('when title, source_branch or target_branch is missing or blank, then 400 (rule 1)', async () => {
      for (const body of [{ source_branch: 'feature', target_branch: 'main' }, { title: '  ', source_branch: 'feature', target_branch: 'main' }, { title: 't', target_branch: 'main' }, { title: 't', source_branch: 'feature', target_branch: '' }]) {
        expect(await open(r, bob.token, body)).toMatchObject({ status: 400, body: { error: 'title, source_branch, and target_branch are required' } });
      }
    });

    it('when source equals target, then 400 `Source and target branches must be different` (rule 2)', async () => {
      expect(await open(r, bob.token, { title: 't', source_branch: 'main', target_branch: 'main' })).toMatchObject({ status: 400, body: { error: 'Source and target branches must be different' } });
    });

    it('when a branch is missing, then 404 `Branch not found: <branch>`, the source checked first (rule 3)', async () => {
      expect(await open(r, bob.token, { title: 't', source_branch: 'nope', target_branch: 'gone' })).toMatchObject({ status: 404, body: { error: 'Branch not found: nope' } });
      expect(await open(r, bob.token, { title: 't', source_branch: 'feature', target_branch: 'gone' })).toMatchObject({ status: 404, body: { error: 'Branch not found: gone' } });
      expect(await open(r, bob.token, { title: 't', source_branch: '--output=/tmp/x', target_branch: 'main' })).toMatchObject({ status: 404, body: { error: 'Branch not found: --output=/tmp/x' } });
    });

    it('when the title is over 255 characters or the description over 65536, then 400', async () => {
      expect((await open(r, bob.token, { title: 'x'.repeat(256), source_branch: 'feature', target_branch: 'main' })).status).toBe(400);
      expect((await open(r, bob.token, { title: 't', description: 'x'.repeat(65_537), source_branch: 'feature', target_branch: 'main' })).status).toBe(400);
    });

    it('when there is no token or a wrong one, then 401 `Authentication required`', async () => {
      expect(await open(r, '')).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
      expect(await open(r, 'not-a-token')).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
    });
  });

  describe('list, detail and comments (seed §4 rules 5-7)', () => {
    let r: Repo;
    beforeAll(async () => {
      r = await repo();
      await open(r, bob.token, { title: 'first', source_branch: 'feature', target_branch: 'main' });
      await open(r, carol.token, { title: 'second', source_branch: 'feature', target_branch: 'main' });
    });

    it('when listing without a state, then open ones newest first with author_username, anonymously too (rule 5)', async () => {
      const res = await api(gh, 'GET', `${r.path}/merge-requests`);
      expect(res.status).toBe(200);
      expect(res.body.map((m: Record<string, unknown>) => [m.number, m.title, m.author_username])).toEqual([
        [2, 'second', 'carol'],
        [1, 'first', 'bob'],
      ]);
    });

    it('when listing with another state, then exact matches only', async () => {
      expect((await api(gh, 'GET', `${r.path}/merge-requests?state=merged`)).body).toEqual([]);
      expect((await api(gh, 'GET', `${r.path}/merge-requests?state=OPEN`)).body).toEqual([]);
    });

    it('when reading one, then current tips, the live diff target -> source, mergeable and comments (rule 6)', async () => {
      const res = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ number: 1, author_username: 'bob', source_sha: await remoteTip(r, 'feature'), target_sha: await remoteTip(r, 'main'), mergeable: true, diff_truncated: false, comments: [] });
      expect(res.body.diff.map((f: Record<string, unknown>) => [f.path, f.status, f.additions, f.deletions])).toEqual([
        ['a.txt', 'modified', 1, 0],
        ['new.txt', 'added', 1, 0],
      ]);
      expect(res.body.diff[0].patch).toContain('+four');
    });

    it('when the source branch changes, then the detail shows the new tip and diff at request time', async () => {
      await git(r.wd, 'checkout', '-q', 'feature');
      const tip = await commitFiles(r.wd, { 'b.txt': 'b\n' }, 'more');
      await git(r.wd, 'push', '-q', r.remote, 'feature');
      const res = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(res.body.source_sha).toBe(tip);
      expect(res.body.diff.map((f: Record<string, unknown>) => f.path)).toEqual(['a.txt', 'b.txt', 'new.txt']);
    });

    it('when the number is unknown or not an integer, then 404 `Merge request #<number> not found`', async () => {
      expect(await api(gh, 'GET', `${r.path}/merge-requests/99`)).toMatchObject({ status: 404, body: { error: 'Merge request #99 not found' } });
      expect(await api(gh, 'GET', `${r.path}/merge-requests/abc`)).toMatchObject({ status: 404, body: { error: 'Merge request #abc not found' } });
    });

    it('when commenting, then 201 with the complete record, and the detail lists comments oldest first (rule 7)', async () => {
      const c1 = await api(gh, 'POST', `${r.path}/merge-requests/1/comments`, { token: bob.token, body: { body: 'line note', file_path: 'a.txt', line_number: 4, diff_side: 'new' } });
      expect(c1.status).toBe(201);
      expect(c1.body).toMatchObject({ author_id: bob.id, body: 'line note', file_path: 'a.txt', line_number: 4, diff_side: 'new' });
      const c2 = await api(gh, 'POST', `${r.path}/merge-requests/1/comments`, { token: carol.token, body: { body: 'general' } });
      expect(c2.body).toMatchObject({ body: 'general', file_path: null, line_number: null, diff_side: null, mr_id: c1.body.mr_id });
      const d = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(d.body.comments.map((c: Record<string, unknown>) => [c.body, c.author_username])).toEqual([
        ['line note', 'bob'],
        ['general', 'carol'],
      ]);
    });

    it('when a comment is invalid, then 400 with the message; an unknown number 404', async () => {
      const post = (body: unknown, n = '1') => api(gh, 'POST', `${r.path}/merge-requests/${n}/comments`, { token: bob.token, body });
      expect(await post({ body: '   ' })).toMatchObject({ status: 400, body: { error: 'Comment body is required' } });
      expect(await post({ body: 'x', diff_side: 'left' })).toMatchObject({ status: 400, body: { error: 'diff_side must be "old" or "new"' } });
      expect(await post({ body: 'x', line_number: -2 })).toMatchObject({ status: 400, body: { error: 'line_number must be a positive integer' } });
      expect(await post({ body: 'x', line_number: 1.5 })).toMatchObject({ status: 400, body: { error: 'line_number must be a positive integer' } });
      expect(await post({ body: 'x'.repeat(65_537) })).toMatchObject({ status: 400 });
      expect(await post({ body: 'x' }, '42')).toMatchObject({ status: 404, body: { error: 'Merge request #42 not found' } });
    });
  });

  describe('merge (seed §4 merge procedure, CONTRACT §6)', () => {
    it('when the caller has no write access, then 400 `You do not have write access to this repository`; without a token 401', async () => {
      const r = await repo();
      await open(r);
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: bob.token })).toMatchObject({ status: 400, body: { error: 'You do not have write access to this repository' } });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`)).toMatchObject({ status: 401, body: { error: 'Authentication required' } });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: 'wrong' })).toMatchObject({ status: 401 });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/7/merge`, { token: carol.token })).toMatchObject({ status: 404, body: { error: 'Merge request #7 not found' } });
    });

    it('when main is an ancestor of the source, then fast-forward; the record, activity and a second merge say so', async () => {
      const r = await repo();
      await open(r);
      const source = await remoteTip(r, 'feature');
      const res = await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token });
      expect(res).toMatchObject({ status: 200, body: { merged: true, sha: source, strategy: 'fast-forward' } });
      expect(await remoteTip(r, 'main')).toBe(source);
      const d = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(d.body).toMatchObject({ state: 'merged', merged_sha: source, merged_by: carol.id });
      expect(d.body.updated_at >= d.body.created_at).toBe(true);
      expect((await api(gh, 'GET', `${r.path}/merge-requests?state=merged`)).body.map((m: Record<string, unknown>) => m.number)).toEqual([1]);
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token })).toMatchObject({ status: 409, body: { error: 'Merge request is not open' } });
      const activity = await api(gh, 'GET', `${r.path}/activity`);
      expect(activity.body.map((a: Record<string, unknown>) => [a.action, a.user_id, a.data])).toEqual([
        ['merge_mr', carol.id, { mr_number: 1, mr_title: 'Add four', merged_sha: source }],
        ['create_mr', bob.id, { mr_number: 1, mr_title: 'Add four' }],
      ]);
      // comments stay possible on a merged merge request (rule 7)
      expect((await api(gh, 'POST', `${r.path}/merge-requests/1/comments`, { token: bob.token, body: { body: 'thanks' } })).status).toBe(201);
    });

    it('when main moved on, then a merge commit: merged tree, parents (main, feature), the merger as author and committer, the seed message', async () => {
      const r = await repo();
      await open(r);
      const target = await advanceMain(r, { 'README.md': 'hello again\n' });
      const source = await remoteTip(r, 'feature');
      const res = await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token });
      expect(res.status).toBe(200);
      expect(res.body.strategy).toBe('merge-commit');
      const sha: string = res.body.sha;
      await git(r.wd, 'fetch', '-q', r.remote, 'main');
      expect(await git(r.wd, 'rev-parse', 'FETCH_HEAD')).toBe(sha);
      const raw = await git(r.wd, 'cat-file', '-p', sha);
      const lines = raw.split('\n');
      expect(lines.filter((l) => l.startsWith('parent '))).toEqual([`parent ${target}`, `parent ${source}`]);
      const author = lines.find((l) => l.startsWith('author '))!;
      expect(author).toMatch(/^author carol <carol@example\.com> \d+ \+0000$/);
      expect(lines.find((l) => l.startsWith('committer '))).toBe(author.replace('author', 'committer'));
      expect(raw.slice(raw.indexOf('\n\n') + 2)).toBe("Merge branch 'feature' into main"); // git() trims the final newline
      expect(await git(r.wd, 'cat-file', '-p', `${sha}:README.md`)).toBe('hello again');
      expect(await git(r.wd, 'cat-file', '-p', `${sha}:a.txt`)).toBe('one\ntwo\nthree\nfour');
      expect(lines[0]).toBe(`tree ${await git(r.wd, 'merge-tree', '--write-tree', target, source)}`);
      expect(await git(r.wd, 'cat-file', '-s', sha)).toBe(String(Buffer.byteLength(raw) + 1));
    });

    it('when the bootstrap admin merges, then author and committer fall back to `unknown`', async () => {
      const r = await repo();
      await open(r);
      await advanceMain(r, { 'README.md': 'admin\n' });
      const res = await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: gh.adminToken });
      expect(res.status).toBe(200);
      await git(r.wd, 'fetch', '-q', r.remote, 'main');
      expect(await git(r.wd, 'cat-file', '-p', res.body.sha)).toMatch(/^author unknown <unknown> \d+ \+0000$/m);
    });

    it('when the merge conflicts, then 409 `Merge conflict` with the paths, nothing changed, and the detail says mergeable false', async () => {
      const r = await repo();
      await open(r);
      const target = await advanceMain(r, { 'a.txt': 'ONE\n' });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token })).toMatchObject({ status: 409, body: { error: 'Merge conflict', conflicts: ['a.txt'] } });
      expect(await remoteTip(r, 'main')).toBe(target);
      expect((await api(gh, 'GET', `${r.path}/merge-requests/1`)).body).toMatchObject({ state: 'open', mergeable: false, conflicts: ['a.txt'] });
    });

    it('when a branch is gone, then `Source branch not found: <name>`, and the detail leaves source_sha out', async () => {
      const r = await repo();
      await open(r);
      await git(r.wd, 'push', '-q', r.remote, ':feature');
      const d = await api(gh, 'GET', `${r.path}/merge-requests/1`);
      expect(d.body).not.toHaveProperty('source_sha');
      expect(d.body).toMatchObject({ diff: [], mergeable: null });
      expect(await api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token })).toMatchObject({ status: 404, body: { error: 'Source branch not found: feature' } });
    });

    it('when 10 merges of one merge request race, then exactly one 200 and nine 409 `Merge request is not open`', async () => {
      const r = await repo();
      await open(r);
      const target = await advanceMain(r, { 'README.md': 'race\n' });
      const all = await Promise.all(Array.from({ length: 10 }, () => api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token })));
      expect(all.filter((x) => x.status === 200)).toHaveLength(1);
      expect(all.filter((x) => x.status === 409 && x.body.error === 'Merge request is not open')).toHaveLength(9);
      const sha = all.find((x) => x.status === 200)!.body.sha;
      await git(r.wd, 'fetch', '-q', r.remote, 'main');
      expect(await git(r.wd, 'rev-parse', 'FETCH_HEAD', 'FETCH_HEAD^1')).toBe(`${sha}\n${target}`);
    });

    it('when a push to main races a merge, then no commit is lost from main', async () => {
      const r = await repo();
      await open(r);
      await git(r.wd, 'checkout', '-q', 'main');
      const pushed = await commitFiles(r.wd, { 'README.md': 'pushed\n' }, 'racing push');
      const [merge, push] = await Promise.all([
        api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token: carol.token }),
        git(r.wd, 'push', '-q', r.remote, 'main').then(() => 'ok', () => 'rejected'),
      ]);
      const main = await remoteTip(r, 'main');
      await git(r.wd, 'fetch', '-q', r.remote, 'main');
      if (push === 'ok') expect(await isAncestor(r.wd, pushed, main)).toBe(true);
      if (merge.status === 200) expect(await isAncestor(r.wd, merge.body.sha, main)).toBe(true);
      else expect(merge.body.error).toBe('Target branch changed; retry the merge');
      expect(push === 'ok' || merge.status === 200).toBe(true);
    });
  });

  describe('private repositories (CONTRACT §3) and activity (CONTRACT §8)', () => {
    it('when the caller cannot read a private repository, then every merge request endpoint answers 404 `Repository not found`', async () => {
      const r = await repo({ private: true });
      expect((await open(r, carol.token)).status).toBe(201);
      for (const [method, path] of [['GET', '/merge-requests'], ['GET', '/merge-requests/1'], ['POST', '/merge-requests'], ['POST', '/merge-requests/1/comments'], ['POST', '/merge-requests/1/merge'], ['GET', '/activity']]) {
        const res = await api(gh, method!, `${r.path}${path}`, { token: bob.token, body: method === 'POST' ? { body: 'x' } : undefined });
        expect([path, res.status, res.body]).toEqual([path, 404, { error: 'Repository not found' }]);
      }
      expect((await api(gh, 'GET', `${r.path}/merge-requests`)).status).toBe(404);
      expect((await api(gh, 'GET', `${r.path}/merge-requests`, { token: carol.token })).body).toHaveLength(1);
    });

    it('when reading activity of a public repository anonymously, then newest first with id, action, user_id, data, created_at', async () => {
      const r = await repo();
      await open(r);
      const res = await api(gh, 'GET', `${r.path}/activity`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ id: expect.any(String), action: 'create_mr', user_id: bob.id, data: { mr_number: 1, mr_title: 'Add four' }, created_at: expect.any(String) }]);
    });
  });
});
