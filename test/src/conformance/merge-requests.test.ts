import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { api, createRepo, eventually, git, gitResult, type TestGithost, type TestUser } from '../support/index.js';
import { History } from './history.js';
import { addCastCollaborators, createCast, fetchAll, pushHistory, startConformanceGithost } from './setup.js';

/**
 * Seed §2 (merge request and comment fields), §3 (states), §4 merge request rules 1-8 and the merge
 * procedure, §7, §8 (50 per list), CONTRACT §4/§5/§6/§8/§9, through the gateway with a real git
 * client checking what the merge wrote.
 */
// The machine is shared; slow, not wrong, must not fail a test.
jest.setTimeout(60_000);

const T0 = 1_600_000_000;
const REQUIRED = 'title, source_branch, and target_branch are required';
const NO_WRITE = 'You do not have write access to this repository';
const RECORD_FIELDS = ['id', 'repo_id', 'number', 'title', 'description', 'author_id', 'source_branch', 'target_branch', 'source_sha', 'state', 'merged_sha', 'merged_by', 'created_at', 'updated_at'];
const DIFF_FIELDS = ['path', 'old_path', 'status', 'old_mode', 'new_mode', 'old_sha', 'new_sha', 'additions', 'deletions', 'binary', 'patch'];

describe('seed §4 merge requests, through the gateway', () => {
  let gh: TestGithost;
  let alice: TestUser; // owner
  let bob: TestUser; // write collaborator
  let carol: TestUser; // read collaborator
  let dave: TestUser; // signed in, no relation to the repository
  let work: string;
  let repoId: string;
  const base = '/api/repos/alice/mr';
  const mrs = `${base}/merge-requests`;
  const tip = async (branch: string) => git(work, 'rev-parse', `refs/remotes/origin/${branch}`);
  const create = (token: string, body: unknown) => api(gh, 'POST', mrs, { token, body });
  const open = async (source: string, target: string, title = `${source} into ${target}`) => {
    const res = await create(alice.token, { title, source_branch: source, target_branch: target });
    if (res.status !== 201) throw new Error(`create ${source}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; number: number; source_sha: string; created_at: string; updated_at: string };
  };

  beforeAll(async () => {
    gh = await startConformanceGithost();
    ({ alice, bob, carol, dave } = await createCast(gh));
    repoId = (await createRepo(gh, alice.token, 'mr')).id;
    await addCastCollaborators(gh, alice, 'mr');

    const h = new History();
    const c0 = h.commit({ ref: 'refs/heads/main', message: 'base\n', date: T0, files: { 'base.txt': 'one\ntwo\nthree\nfour\nfive\n', 'conflict.txt': 'original\n' } });
    const branch = (name: string, files: Record<string, string>, from = c0, date = T0 + 10) => h.commit({ ref: `refs/heads/${name}`, from, message: `${name}\n`, date, files });
    h.ref('refs/heads/ff-target', c0);
    branch('ff-source', { 'ff.txt': 'ff\n' });
    branch('mc-target', { 'base.txt': 'one\ntwo\nthree\nfour\nFIVE (target)\n', 'target-only.txt': 'target\n' });
    branch('mc-source', { 'base.txt': 'ONE (source)\ntwo\nthree\nfour\nfive\n', 'source-only.txt': 'source\n' });
    branch('cf-target', { 'conflict.txt': 'target\n' });
    branch('cf-source', { 'conflict.txt': 'source\n' });
    branch('gone-source', { 'gone.txt': 'gone\n' });
    h.ref('refs/heads/gt-target', c0);
    branch('gt-source', { 'gt.txt': 'gt\n' });
    branch('lit-target', { 'tnew.txt': 'target new\n' });
    branch('lit-source', { 'lit.txt': 'lit\n' });
    branch('live-source', { 'live.txt': 'v1\n' });
    branch('adm-target', { 'adm-target.txt': 't\n' });
    branch('adm-source', { 'adm-source.txt': 's\n' });
    branch('feature/with/slash', { 'slash.txt': 'slash\n' });
    h.ref('refs/tags/only-a-tag', c0);
    h.ref('refs/heads/same-target', c0);
    h.ref('refs/heads/same-source', c0);
    h.ref('refs/heads/race-target', c0);
    // anc-target is reachable from anc-source only through the SECOND parent of its merge commit
    const x = branch('anc-target', { 'x.txt': 'x\n' });
    const y = h.commit({ ref: 'refs/heads/anc-side', from: c0, message: 'y\n', date: T0 + 11, files: { 'y.txt': 'y\n' } });
    h.commit({ ref: 'refs/heads/anc-source', from: y, merge: [x], message: 'merge x into y\n', date: T0 + 12, files: { 'x.txt': 'x\n' } });
    const kt = branch('kinds-target', { 'mode.sh': 'echo\n', 'tc.txt': 'regular\n', 'gone.txt': 'bye\n' });
    h.commit({
      ref: 'refs/heads/kinds-source', from: kt, message: 'kinds\n', date: T0 + 20,
      files: { 'base.txt': 'ONE\ntwo\nthree\nfour\nfive\n', 'renamed.txt': 'original\n', 'tc.txt': { content: 'base.txt', mode: '120000' }, 'mode.sh': { content: 'echo\n', mode: '100755' } },
      deletes: ['gone.txt', 'conflict.txt'],
    });
    branch('big-source', { 'big.txt': `${'x'.repeat(99)}\n`.repeat(12_000) });
    h.commit({ ref: 'refs/heads/bin-source', from: c0, message: 'bin\n', date: T0 + 10, files: { 'img.bin': Buffer.from([0x89, 0x50, 0x00, 0x00, 0x01]) } });
    branch('race-source', { 'race.txt': 'race\n' });
    work = await pushHistory(gh, alice, 'alice', 'mr', h);
    await fetchAll(work);
  }, 180_000);
  afterAll(async () => {
    await gh?.stop();
  });

  describe('create (rules 1-4, §3)', () => {
    it('when no credential is sent, then 401 Authentication required (CONTRACT §3)', async () => {
      const res = await api(gh, 'POST', mrs, { body: { title: 't', source_branch: 'ff-source', target_branch: 'main' } });
      expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
    });

    it('when title, source_branch or target_branch is missing, empty or blank, then 400 with the rule 1 message', async () => {
      const full = { title: 'T', source_branch: 'ff-source', target_branch: 'main' };
      const cases = [
        { ...full, title: undefined }, { ...full, title: '' }, { ...full, title: '   ' },
        { ...full, source_branch: undefined }, { ...full, source_branch: '' },
        { ...full, target_branch: undefined }, { ...full, target_branch: '' }, {},
      ];
      for (const body of cases) {
        const res = await create(alice.token, body);
        expect([body, res.status, res.body]).toEqual([body, 400, { error: REQUIRED }]);
      }
    });

    it('when there is no body at all, then 400 with the rule 1 message', async () => {
      const res = await api(gh, 'POST', mrs, { token: alice.token });
      expect([res.status, res.body]).toEqual([400, { error: REQUIRED }]);
    });

    it('when the fields are missing AND the branches are equal, then the required check comes first', async () => {
      const res = await create(alice.token, { title: '', source_branch: 'main', target_branch: 'main' });
      expect([res.status, res.body]).toEqual([400, { error: REQUIRED }]);
    });

    it('when source equals target, then 400 Source and target branches must be different, even for a branch that does not exist', async () => {
      for (const name of ['main', 'no-such-branch']) {
        const res = await create(alice.token, { title: 'T', source_branch: name, target_branch: name });
        expect([name, res.status, res.body]).toEqual([name, 400, { error: 'Source and target branches must be different' }]);
      }
    });

    it('when the source branch is missing, then 404 Branch not found: <source>, checked before the target', async () => {
      const res = await create(alice.token, { title: 'T', source_branch: 'nope-src', target_branch: 'nope-tgt' });
      expect([res.status, res.body]).toEqual([404, { error: 'Branch not found: nope-src' }]);
    });

    it('when the target branch is missing, then 404 Branch not found: <target>', async () => {
      const res = await create(alice.token, { title: 'T', source_branch: 'ff-source', target_branch: 'nope-tgt' });
      expect([res.status, res.body]).toEqual([404, { error: 'Branch not found: nope-tgt' }]);
    });

    it('when a branch is given with its refs/heads/ prefix or looks like an option, then it is only ever a plain name', async () => {
      for (const name of ['refs/heads/ff-source', '--all', '-h', 'HEAD', 'ff-source~1', 'ff-source^{tree}']) {
        const res = await create(alice.token, { title: 'T', source_branch: name, target_branch: 'main' });
        expect([name, res.status, res.body]).toEqual([name, 404, { error: `Branch not found: ${name}` }]);
      }
    });

    it('when a name exists only as a tag, then it is not a branch (refs/heads/ only)', async () => {
      const res = await create(alice.token, { title: 'T', source_branch: 'only-a-tag', target_branch: 'main' });
      expect([res.status, res.body]).toEqual([404, { error: 'Branch not found: only-a-tag' }]);
    });

    it('when a signed-in user with no access to the public repository creates one, then 201 with the complete record (rule 4)', async () => {
      const res = await create(dave.token, { title: 'Dave\'s idea', source_branch: 'feature/with/slash', target_branch: 'main' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining(RECORD_FIELDS));
      expect(res.body).toMatchObject({
        repo_id: repoId, title: 'Dave\'s idea', description: null, author_id: dave.id, source_branch: 'feature/with/slash', target_branch: 'main',
        source_sha: await tip('feature/with/slash'), state: 'open', merged_sha: null, merged_by: null,
      });
      expect(typeof res.body.id).toBe('string');
      expect(Number.isInteger(res.body.number)).toBe(true);
      // seed §2: author_username is added to list and detail responses only
      expect('author_username' in res.body).toBe(false);
    });

    it('when the same branches already have an open merge request, then another is created with the next number (rule 4)', async () => {
      const first = await create(bob.token, { title: 'dup 1', description: 'described', source_branch: 'ff-source', target_branch: 'main' });
      const second = await create(bob.token, { title: 'dup 2', source_branch: 'ff-source', target_branch: 'main' });
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.body.description).toBe('described');
      expect(second.body.number).toBe(first.body.number + 1);
    });

    it('when a title is over 255 characters or a description over 65,536, then 400 (CONTRACT §9)', async () => {
      for (const extra of [{ title: 'x'.repeat(256) }, { description: 'd'.repeat(65_537) }]) {
        const res = await create(alice.token, { title: 'T', source_branch: 'ff-source', target_branch: 'main', ...extra });
        expect([res.status, typeof res.body.error]).toEqual([400, 'string']);
      }
      const atLimit = await create(alice.token, { title: 't'.repeat(255), description: 'd'.repeat(65_536), source_branch: 'ff-source', target_branch: 'main' });
      expect(atLimit.status).toBe(201);
    });

    it('when a merge request is created, then activity create_mr is logged with mr_number and mr_title (§3, CONTRACT §8)', async () => {
      const mr = await open('lit-source', 'lit-target', 'Activity probe');
      const activity = await eventually(async () => {
        const res = await api(gh, 'GET', `${base}/activity`);
        return (res.body as { action: string; data: { mr_number?: number } }[]).find((a) => a.action === 'create_mr' && a.data.mr_number === mr.number);
      });
      expect(Object.keys(activity).sort()).toEqual(['action', 'created_at', 'data', 'id', 'user_id']);
      expect(activity).toMatchObject({ action: 'create_mr', user_id: alice.id, data: { mr_number: mr.number, mr_title: 'Activity probe' } });
    });
  });

  describe('numbering and list (§2 number, rule 5, §8)', () => {
    const seq = '/api/repos/alice/seq/merge-requests';

    beforeAll(async () => {
      await createRepo(gh, alice.token, 'seq');
      const h = new History();
      const c = h.commit({ ref: 'refs/heads/main', message: 'm\n', date: T0, files: { 'a.txt': 'a\n' } });
      h.commit({ ref: 'refs/heads/topic', from: c, message: 't\n', date: T0 + 1, files: { 'b.txt': 'b\n' } });
      await pushHistory(gh, alice, 'alice', 'seq', h);
    });

    it('when merge requests are created one after another, then numbers start at 1 and go up by one', async () => {
      const numbers: number[] = [];
      for (let i = 1; i <= 41; i++) {
        const res = await api(gh, 'POST', seq, { token: alice.token, body: { title: `seq ${i}`, source_branch: 'topic', target_branch: 'main' } });
        numbers.push(res.body.number);
      }
      expect(numbers).toEqual(Array.from({ length: 41 }, (_, i) => i + 1));
    }, 120_000);

    it('when merge requests are created concurrently, then numbers stay unique and gapless (CONTRACT §9)', async () => {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => api(gh, 'POST', seq, { token: bob.token, body: { title: `par ${i}`, source_branch: 'topic', target_branch: 'main' } })));
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(results.map((r) => r.body.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 42));
    });

    it('when listed without state, then at most 50 open ones, newest first, with author_username, anonymously', async () => {
      const res = await api(gh, 'GET', seq);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(50);
      const created = res.body.map((m: { created_at: string }) => Date.parse(m.created_at));
      expect(created).toEqual([...created].sort((a, b) => b - a));
      expect(res.body.map((m: { number: number }) => m.number)).not.toContain(1);
      expect(res.body.every((m: { state: string }) => m.state === 'open')).toBe(true);
      const byNumber = Object.fromEntries(res.body.map((m: { number: number; author_username: string }) => [m.number, m.author_username]));
      expect([byNumber[41], byNumber[42]]).toEqual(['alice', 'bob']);
      expect(Object.keys(res.body[0])).toEqual(expect.arrayContaining([...RECORD_FIELDS, 'author_username']));
    });

    it('when state is empty, then open (CONTRACT §9)', async () => {
      const res = await api(gh, 'GET', `${seq}?state=`);
      expect([res.status, res.body.length]).toEqual([200, 50]);
    });

    it('when state is any other string, then only exact, case-sensitive matches (none here)', async () => {
      for (const state of ['merged', 'OPEN', 'closed', 'anything']) {
        const res = await api(gh, 'GET', `${seq}?state=${state}`);
        expect([state, res.status, res.body]).toEqual([state, 200, []]);
      }
    });
  });

  describe('detail (rule 6, §2 detail fields)', () => {
    it('when the number is unknown or not an integer, then 404 Merge request #<number> not found', async () => {
      for (const n of ['9999', 'abc', '0', '-1']) {
        const res = await api(gh, 'GET', `${mrs}/${n}`);
        expect([n, res.status, res.body]).toEqual([n, 404, { error: `Merge request #${n} not found` }]);
      }
    });

    it('when {number} is written with a leading zero, then it is parsed as the integer (seed §4 path parameters)', async () => {
      const created = await open('gt-source', 'main', 'Leading zero probe');
      const res = await api(gh, 'GET', `${mrs}/0${created.number}`);
      expect([res.status, res.body.number]).toEqual([200, created.number]);
    });

    it('when read anonymously, then the record with author_username, both tips, the diff, comments and mergeable', async () => {
      const mr = await open('gt-source', 'main', 'Detail probe');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining([...RECORD_FIELDS, 'author_username', 'target_sha', 'diff', 'comments', 'mergeable']));
      expect(res.body).toMatchObject({
        id: mr.id, number: mr.number, title: 'Detail probe', author_username: 'alice', source_sha: await tip('gt-source'), target_sha: await tip('main'),
        comments: [], mergeable: true, state: 'open',
      });
      expect(res.body.diff).toHaveLength(1);
      expect(Object.keys(res.body.diff[0]).sort()).toEqual([...DIFF_FIELDS].sort());
      expect(res.body.diff[0]).toMatchObject({ path: 'gt.txt', status: 'added', new_mode: '100644', new_sha: await git(work, 'rev-parse', 'refs/remotes/origin/gt-source:gt.txt'), additions: 1, deletions: 0, binary: false });
      expect(res.body.diff[0].patch).toContain('+gt');
    });

    it('when the target moved on, then the diff is literally target tip to source tip (no merge base, CONTRACT §9)', async () => {
      const mr = await open('lit-source', 'lit-target');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      const summary = res.body.diff.map((d: { path: string; status: string }) => [d.path, d.status]).sort();
      expect(summary).toEqual([['lit.txt', 'added'], ['tnew.txt', 'deleted']]);
    });

    it('when the source branch gets a new commit, then detail shows the CURRENT tip while the stored record keeps the old one', async () => {
      const mr = await open('live-source', 'main');
      const before = await tip('live-source');
      expect(mr.source_sha).toBe(before);
      const after = await git(work, 'commit-tree', '-p', before, '-m', 'live v2', `${before}^{tree}`);
      await git(work, 'push', '-q', 'origin', `${after}:refs/heads/live-source`);
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect([res.body.source_sha, after === before]).toEqual([after, false]);
      const listed = (await api(gh, 'GET', mrs)).body.find((m: { number: number }) => m.number === mr.number);
      expect(listed.source_sha).toBe(before);
    });

    it('when the source branch no longer exists, then source_sha is ABSENT, diff is empty and mergeable is null', async () => {
      const mr = await open('gone-source', 'main');
      await git(work, 'push', '-q', 'origin', '--delete', 'gone-source');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(res.status).toBe(200);
      expect('source_sha' in res.body).toBe(false);
      expect([res.body.target_sha, res.body.diff, res.body.mergeable]).toEqual([await tip('main'), [], null]);
    });

    it('when the target branch no longer exists, then target_sha is ABSENT and diff is empty', async () => {
      const mr = await open('gt-source', 'gt-target');
      await git(work, 'push', '-q', 'origin', '--delete', 'gt-target');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect('target_sha' in res.body).toBe(false);
      expect([res.body.source_sha, res.body.diff]).toEqual([await tip('gt-source'), []]);
      const merge = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: alice.token });
      expect([merge.status, merge.body]).toEqual([404, { error: 'Target branch not found: gt-target' }]);
    });

    it('when files are modified, deleted, renamed, re-moded and turned into a symlink, then each diff element says so (CONTRACT §5)', async () => {
      const mr = await open('kinds-source', 'kinds-target');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      const byPath = Object.fromEntries(res.body.diff.map((d: { path: string }) => [d.path, d]));
      const blob = (ref: string, path: string) => git(work, 'rev-parse', `refs/remotes/origin/${ref}:${path}`);
      expect(Object.keys(byPath).sort()).toEqual(['base.txt', 'gone.txt', 'mode.sh', 'renamed.txt', 'tc.txt']);
      expect(byPath['base.txt']).toMatchObject({ status: 'modified', old_mode: '100644', new_mode: '100644', old_sha: await blob('kinds-target', 'base.txt'), new_sha: await blob('kinds-source', 'base.txt'), additions: 1, deletions: 1, binary: false });
      expect(byPath['base.txt'].patch).toContain('-one\n+ONE\n');
      expect(byPath['gone.txt']).toMatchObject({ status: 'deleted', old_mode: '100644', old_sha: await blob('kinds-target', 'gone.txt'), additions: 0, deletions: 1 });
      expect(byPath['renamed.txt']).toMatchObject({ status: 'renamed', old_path: 'conflict.txt', additions: 0, deletions: 0 });
      expect(byPath['tc.txt']).toMatchObject({ status: 'type_changed', old_mode: '100644', new_mode: '120000' });
      expect(byPath['mode.sh']).toMatchObject({ status: 'modified', old_mode: '100644', new_mode: '100755', additions: 0, deletions: 0 });
      expect('conflicts' in res.body).toBe(false);
    });

    it('when a file is binary, then binary is true and patch is null (CONTRACT §5)', async () => {
      const mr = await open('bin-source', 'main');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(res.body.diff).toHaveLength(1);
      expect(res.body.diff[0]).toMatchObject({ path: 'img.bin', status: 'added', binary: true, patch: null });
    });

    it('when one file\'s patch is over 1 MiB, then its patch is null and diff_truncated is true (CONTRACT §5)', async () => {
      const mr = await open('big-source', 'main');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(res.status).toBe(200);
      expect(res.body.diff[0]).toMatchObject({ path: 'big.txt', status: 'added', additions: 12_000, patch: null });
      expect(res.body.diff_truncated).toBe(true);
    });

    it('when the branches conflict, then mergeable is false with the conflicting paths (CONTRACT §5)', async () => {
      const mr = await open('cf-source', 'cf-target');
      const res = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect([res.body.mergeable, res.body.conflicts]).toEqual([false, ['conflict.txt']]);
    });
  });

  describe('comments (rule 7, §2 comment fields)', () => {
    let number: number;
    let mrId: string;
    const comments = () => `${mrs}/${number}/comments`;

    beforeAll(async () => {
      const mr = await open('adm-source', 'main', 'Comment target');
      number = mr.number;
      mrId = mr.id;
    });

    it('when no credential is sent, then 401 Authentication required', async () => {
      const res = await api(gh, 'POST', comments(), { body: { body: 'hi' } });
      expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
    });

    it('when any signed-in user comments, then 201 with the complete record, optional fields null', async () => {
      const res = await api(gh, 'POST', comments(), { token: dave.token, body: { body: 'Looks good' } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining(['id', 'mr_id', 'author_id', 'body', 'file_path', 'line_number', 'diff_side', 'created_at']));
      expect(res.body).toMatchObject({ mr_id: mrId, author_id: dave.id, body: 'Looks good', file_path: null, line_number: null, diff_side: null });
    });

    it('when the optional fields are sent as explicit null, then they are accepted and stored as null', async () => {
      const res = await api(gh, 'POST', comments(), { token: alice.token, body: { body: 'nulls', file_path: null, line_number: null, diff_side: null } });
      expect([res.status, res.body.file_path, res.body.line_number, res.body.diff_side]).toEqual([201, null, null, null]);
    });

    it('when file_path, line_number and diff_side are given, then they are stored', async () => {
      const res = await api(gh, 'POST', comments(), { token: carol.token, body: { body: 'nit', file_path: 'adm-source.txt', line_number: 1, diff_side: 'new' } });
      expect([res.status, res.body.file_path, res.body.line_number, res.body.diff_side, res.body.author_id]).toEqual([201, 'adm-source.txt', 1, 'new', carol.id]);
    });

    it('when body is missing, empty or blank, then 400 Comment body is required', async () => {
      for (const body of [{}, { body: '' }, { body: '  \n ' }]) {
        const res = await api(gh, 'POST', comments(), { token: alice.token, body });
        expect([body, res.status, res.body]).toEqual([body, 400, { error: 'Comment body is required' }]);
      }
    });

    it('when the number is unknown or not an integer, then 404 Merge request #<number> not found', async () => {
      for (const n of ['9999', 'abc']) {
        const res = await api(gh, 'POST', `${mrs}/${n}/comments`, { token: alice.token, body: { body: 'x' } });
        expect([n, res.status, res.body]).toEqual([n, 404, { error: `Merge request #${n} not found` }]);
      }
    });

    it('when diff_side is not old or new, then 400 (CONTRACT §9)', async () => {
      const res = await api(gh, 'POST', comments(), { token: alice.token, body: { body: 'x', diff_side: 'left' } });
      expect([res.status, res.body]).toEqual([400, { error: 'diff_side must be "old" or "new"' }]);
    });

    it('when line_number is not a positive integer, then 400 (CONTRACT §9)', async () => {
      for (const line of [0, -1, 1.5, '3']) {
        const res = await api(gh, 'POST', comments(), { token: alice.token, body: { body: 'x', line_number: line } });
        expect([line, res.status, res.body]).toEqual([line, 400, { error: 'line_number must be a positive integer' }]);
      }
    });

    it('when a body is over 65,536 characters, then 400; at the limit it is accepted (CONTRACT §9)', async () => {
      const over = await api(gh, 'POST', comments(), { token: alice.token, body: { body: 'y'.repeat(65_537) } });
      expect(over.status).toBe(400);
      expect(typeof over.body.error).toBe('string');
      const limit = await api(gh, 'POST', `${mrs}/1/comments`, { token: alice.token, body: { body: 'y'.repeat(65_536) } });
      expect(limit.status).toBe(201);
    });

    it('when the detail is read, then comments come oldest first, each with author_username', async () => {
      const res = await api(gh, 'GET', `${mrs}/${number}`);
      expect(res.body.comments.map((c: { body: string; author_username: string }) => [c.body, c.author_username])).toEqual([['Looks good', 'dave'], ['nulls', 'alice'], ['nit', 'carol']]);
    });
  });

  describe('merge procedure (§4 steps 1-8, CONTRACT §6)', () => {
    it('when no credential is sent, then 401 Authentication required', async () => {
      const res = await api(gh, 'POST', `${mrs}/1/merge`);
      expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
    });

    it('when the caller lacks write access, then 400 with the step 1 message, before the number is looked up', async () => {
      const mr = await open('ff-source', 'ff-target', 'Write check');
      for (const [who, path] of [[carol, `${mrs}/${mr.number}/merge`], [dave, `${mrs}/${mr.number}/merge`], [carol, `${mrs}/9999/merge`], [dave, `${mrs}/abc/merge`]] as const) {
        const res = await api(gh, 'POST', path, { token: who.token });
        expect([who.username, path, res.status, res.body]).toEqual([who.username, path, 400, { error: NO_WRITE }]);
      }
      expect((await api(gh, 'GET', `${mrs}/${mr.number}`)).body.state).toBe('open');
    });

    it('when the number is unknown, then 404 Merge request #<number> not found', async () => {
      for (const n of ['9999', 'abc']) {
        const res = await api(gh, 'POST', `${mrs}/${n}/merge`, { token: alice.token });
        expect([n, res.status, res.body]).toEqual([n, 404, { error: `Merge request #${n} not found` }]);
      }
    });

    it('when the target tip is an ancestor of the source tip, then fast-forward to the source tip (step 4)', async () => {
      const mr = await open('ff-source', 'ff-target', 'Fast forward');
      const sourceTip = await tip('ff-source');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: bob.token });
      expect([res.status, res.body]).toEqual([200, { merged: true, sha: sourceTip, strategy: 'fast-forward' }]);
      await fetchAll(work);
      expect(await tip('ff-target')).toBe(sourceTip);
      const detail = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(detail.body).toMatchObject({ state: 'merged', merged_sha: sourceTip, merged_by: bob.id });
      expect(Date.parse(detail.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(mr.updated_at));
      expect(detail.body.updated_at).not.toBe(mr.updated_at);
    });

    it('when the target tip is an ancestor only through a second parent, then still fast-forward (step 4: walking parent links)', async () => {
      const mr = await open('anc-source', 'anc-target', 'Second parent');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: alice.token });
      expect([res.status, res.body]).toEqual([200, { merged: true, sha: await tip('anc-source'), strategy: 'fast-forward' }]);
    });

    it('when the target tip IS the source tip, then fast-forward with the source tip and nothing new is written (step 4)', async () => {
      const mr = await open('same-source', 'same-target', 'Same tip');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: alice.token });
      expect([res.status, res.body]).toEqual([200, { merged: true, sha: await tip('same-source'), strategy: 'fast-forward' }]);
      expect((await api(gh, 'GET', `${mrs}/${mr.number}`)).body.state).toBe('merged');
    });

    it('when two merges of one merge request race, then exactly one succeeds and the other gets 409 Merge request is not open (CONTRACT §6)', async () => {
      const mr = await open('race-source', 'race-target', 'Race');
      const results = await Promise.all([alice, bob].map((who) => api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: who.token })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)?.body).toEqual({ error: 'Merge request is not open' });
      expect(results.find((r) => r.status === 200)?.body).toEqual({ merged: true, sha: await tip('race-source'), strategy: 'fast-forward' });
    });

    it('when the source moved after creation, then the merge uses the CURRENT source tip (step 3)', async () => {
      const mr = await open('race-source', 'ff-target', 'Moved source');
      const old = await tip('race-source');
      const moved = await git(work, 'commit-tree', '-p', old, '-m', 'moved on', `${old}^{tree}`);
      await git(work, 'push', '-q', 'origin', `${moved}:refs/heads/race-source`);
      const targetTip = await tip('ff-target');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: alice.token });
      expect(res.status).toBe(200);
      await fetchAll(work);
      expect(await tip('ff-target')).toBe(res.body.sha);
      // moved's parents include the old source tip; the target (ff-source's tip) is not an ancestor
      const record = await api(gh, 'GET', `${base}/commit/${res.body.sha}`);
      expect(record.body.parents).toEqual([targetTip, moved]);
    });

    it('when the merge request is already merged, then 409 Merge request is not open, before branches are resolved (step 2)', async () => {
      const merged = (await api(gh, 'GET', `${mrs}?state=merged`)).body.find((m: { title: string }) => m.title === 'Fast forward');
      await git(work, 'push', '-q', 'origin', '--delete', 'ff-source');
      const before = (await api(gh, 'GET', `${mrs}/${merged.number}`)).body;
      const res = await api(gh, 'POST', `${mrs}/${merged.number}/merge`, { token: alice.token });
      expect([res.status, res.body]).toEqual([409, { error: 'Merge request is not open' }]);
      // seed §3: a rejected merge changes nothing
      const after = (await api(gh, 'GET', `${mrs}/${merged.number}`)).body;
      expect([after.merged_by, after.merged_sha, after.updated_at, after.state]).toEqual([before.merged_by, before.merged_sha, before.updated_at, 'merged']);
      const reader = await api(gh, 'POST', `${mrs}/${merged.number}/merge`, { token: carol.token });
      expect([reader.status, reader.body]).toEqual([400, { error: NO_WRITE }]);
    });

    it('when a merged merge request gets a comment, then 201 (rule 7: any state)', async () => {
      const merged = (await api(gh, 'GET', `${mrs}?state=merged`)).body.find((m: { title: string }) => m.title === 'Fast forward');
      const res = await api(gh, 'POST', `${mrs}/${merged.number}/comments`, { token: dave.token, body: { body: 'after the fact' } });
      expect(res.status).toBe(201);
    });

    it('when the source branch is gone, then 404 Source branch not found: <name> (step 3)', async () => {
      const gone = (await api(gh, 'GET', mrs)).body.find((m: { source_branch: string }) => m.source_branch === 'gone-source');
      const res = await api(gh, 'POST', `${mrs}/${gone.number}/merge`, { token: alice.token });
      expect([res.status, res.body]).toEqual([404, { error: 'Source branch not found: gone-source' }]);
    });

    it('when both sides moved, then a merge commit: three-way tree, parents target then source, author/committer lines, message (step 5)', async () => {
      const mr = await open('mc-source', 'mc-target', 'Real merge');
      const [targetTip, sourceTip] = [await tip('mc-target'), await tip('mc-source')];
      const before = Math.floor(Date.now() / 1000);
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: bob.token });
      const after = Math.ceil(Date.now() / 1000);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ merged: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/), strategy: 'merge-commit' });
      await fetchAll(work);
      expect(await tip('mc-target')).toBe(res.body.sha);

      const raw = (await gitResult(work, 'cat-file', 'commit', res.body.sha)).stdout;
      const m = raw.match(/^tree ([0-9a-f]{40})\nparent ([0-9a-f]{40})\nparent ([0-9a-f]{40})\nauthor bob <bob@example\.com> (\d+) \+0000\ncommitter bob <bob@example\.com> (\d+) \+0000\n\n([\s\S]*)$/);
      expect(m).not.toBeNull();
      const [, tree, parent1, parent2, authored, committed, message] = m ?? [];
      expect([parent1, parent2, message]).toEqual([targetTip, sourceTip, 'Merge branch \'mc-source\' into mc-target\n']);
      expect(Number(authored)).toBeGreaterThanOrEqual(before);
      expect(Number(committed)).toBeLessThanOrEqual(after);
      // CONTRACT §6: the merged tree, not the source tip's tree (which would drop target-only.txt)
      const merged = (await git(work, 'merge-tree', '--write-tree', targetTip, sourceTip)).split('\n')[0];
      expect(tree).toBe(merged);
      expect(await git(work, 'show', `${res.body.sha}:base.txt`)).toBe('ONE (source)\ntwo\nthree\nfour\nFIVE (target)');
      expect(await git(work, 'show', `${res.body.sha}:target-only.txt`)).toBe('target');

      const detail = await api(gh, 'GET', `${mrs}/${mr.number}`);
      expect(detail.body).toMatchObject({ state: 'merged', merged_sha: res.body.sha, merged_by: bob.id });
      // the browse API sees the same commit
      const record = await api(gh, 'GET', `${base}/commit/${res.body.sha}`);
      expect([record.body.tree, record.body.parents, record.body.message, record.body.author.name, record.body.author.email]).toEqual([tree, [targetTip, sourceTip], 'Merge branch \'mc-source\' into mc-target\n', 'bob', 'bob@example.com']);
    });

    it('when a merge happened, then activity merge_mr is logged with mr_number, mr_title and merged_sha (step 8)', async () => {
      const merged = (await api(gh, 'GET', `${mrs}?state=merged`)).body.find((m: { title: string }) => m.title === 'Real merge');
      const entry = await eventually(async () => {
        const res = await api(gh, 'GET', `${base}/activity`);
        return (res.body as { action: string; data: { mr_number?: number } }[]).find((a) => a.action === 'merge_mr' && a.data.mr_number === merged.number);
      });
      expect(entry).toMatchObject({ action: 'merge_mr', user_id: bob.id, data: { mr_number: merged.number, mr_title: 'Real merge', merged_sha: merged.merged_sha } });
      const all = (await api(gh, 'GET', `${base}/activity`)).body as { created_at: string }[];
      const times = all.map((a) => Date.parse(a.created_at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('when the branches conflict, then 409 Merge conflict with the paths and nothing changes (CONTRACT §6)', async () => {
      const mr = (await api(gh, 'GET', mrs)).body.find((m: { source_branch: string }) => m.source_branch === 'cf-source');
      const targetBefore = await tip('cf-target');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: alice.token });
      expect([res.status, res.body]).toEqual([409, { error: 'Merge conflict', conflicts: ['conflict.txt'] }]);
      await fetchAll(work);
      expect(await tip('cf-target')).toBe(targetBefore);
      expect((await api(gh, 'GET', `${mrs}/${mr.number}`)).body.state).toBe('open');
    });

    it('when the bootstrap admin token merges, then the merge commit uses the `unknown` fallback (step 5, CONTRACT §9)', async () => {
      const mr = await open('adm-source', 'adm-target', 'Admin merge');
      const res = await api(gh, 'POST', `${mrs}/${mr.number}/merge`, { token: gh.adminToken });
      expect([res.status, res.body.strategy]).toEqual([200, 'merge-commit']);
      await fetchAll(work);
      const raw = (await gitResult(work, 'cat-file', 'commit', res.body.sha)).stdout;
      expect(raw).toMatch(/\nauthor unknown <unknown> \d+ \+0000\ncommitter unknown <unknown> \d+ \+0000\n\nMerge branch 'adm-source' into adm-target\n$/);
    });

    it('when listing merged ones, then state=merged returns exactly the merged ones', async () => {
      const res = await api(gh, 'GET', `${mrs}?state=merged`);
      expect(res.body.map((m: { title: string }) => m.title).sort()).toEqual(['Admin merge', 'Fast forward', 'Moved source', 'Race', 'Real merge', 'Same tip', 'Second parent']);
      expect(res.body.every((m: { state: string; merged_sha: string }) => m.state === 'merged' && /^[0-9a-f]{40}$/.test(m.merged_sha))).toBe(true);
    });
  });
});
