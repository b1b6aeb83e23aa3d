import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/**
 * The merge-request workflow a team expects (docs/decisions/README.md#merge-requests: lifecycle, following the source
 * branch, merge options) through the gateway, with the real git client on real branches.
 */
let gh: TestGithost;
let alice: TestUser; // owner
let bob: TestUser; // reader (public repositories), author of merge requests
let carol: TestUser; // write collaborator
let receiver: Receiver;
let counter = 0;

jest.setTimeout(120_000);

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  bob = await createUser(gh, 'bob');
  carol = await createUser(gh, 'carol');
  receiver = await startReceiver();
}, 180_000);
afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

interface Repo {
  name: string;
  path: string;
  wd: string;
  remote: string;
}

/** alice/<name>: main (README, a.txt) and feature one commit ahead; carol writes, pushes go as carol. */
async function repo(): Promise<Repo> {
  const name = `flow${++counter}`;
  await createRepo(gh, alice.token, name);
  await addCollaborator(gh, alice.token, 'alice', name, 'carol', 'write');
  const wd = makeWorkdir();
  await commitFiles(wd, { 'README.md': 'hello\n', 'a.txt': 'one\ntwo\nthree\n' }, 'initial');
  await git(wd, 'checkout', '-q', '-b', 'feature');
  await commitFiles(wd, { 'a.txt': 'one\ntwo\nthree\nfour\n', 'new.txt': 'new\n' }, 'feature work');
  await git(wd, 'checkout', '-q', 'main');
  const remote = pushUrl(gh, 'carol', carol.token, 'alice', name);
  await git(wd, 'push', '-q', remote, 'main', 'feature');
  return { name, path: `/api/repos/alice/${name}`, wd, remote };
}

const open = (r: Repo, title = 'Add four') => api(gh, 'POST', `${r.path}/merge-requests`, { token: bob.token, body: { title, source_branch: 'feature', target_branch: 'main' } });
const detail = (r: Repo, n = 1) => api(gh, 'GET', `${r.path}/merge-requests/${n}`, { token: bob.token });
const patch = (r: Repo, body: unknown, token = bob.token, n = 1) => api(gh, 'PATCH', `${r.path}/merge-requests/${n}`, { token, body });
const merge = (r: Repo, body?: unknown, token = carol.token) => api(gh, 'POST', `${r.path}/merge-requests/1/merge`, { token, body });
const activity = async (r: Repo) => (await api(gh, 'GET', `${r.path}/activity`, { token: bob.token })).body as Array<{ action: string; user_id: string | null; data: Record<string, unknown> }>;
const tip = async (r: Repo, ref: string) => (await git(r.wd, 'rev-parse', ref)).trim();

/** Commits on `branch` in the work tree; returns the new tip (not pushed). */
async function commitOn(r: Repo, branch: string, files: Record<string, string>, message: string): Promise<string> {
  await git(r.wd, 'checkout', '-q', branch);
  return (await commitFiles(r.wd, files, message)).trim();
}

describe('lifecycle (PATCH)', () => {
  it('when the author closes, edits and reopens, then the state, the list by state, the activity and the 409 on merge follow', async () => {
    const r = await repo();
    await open(r);
    expect(await patch(r, { state: 'closed' }, alice.token.replace(/./g, 'x'))).toMatchObject({ status: 401 });
    const outsider = await createUser(gh, `dave${counter}`);
    expect(await patch(r, { state: 'closed' }, outsider.token)).toMatchObject({ status: 400, body: { error: 'Only the author or users with write access can change this merge request' } });
    expect(await patch(r, { state: 'done' })).toMatchObject({ status: 400, body: { error: 'state must be "open" or "closed"' } });
    expect(await patch(r, {})).toMatchObject({ status: 400, body: { error: 'Nothing to change: give title, description or state' } });
    expect(await patch(r, { title: 'x'.repeat(256) })).toMatchObject({ status: 400 });

    expect(await patch(r, { state: 'closed', description: 'parked for now' })).toMatchObject({ status: 200, body: { number: 1, state: 'closed', description: 'parked for now' } });
    expect((await api(gh, 'GET', `${r.path}/merge-requests?state=closed`)).body.map((m: { number: number }) => m.number)).toEqual([1]);
    expect((await api(gh, 'GET', `${r.path}/merge-requests`)).body).toEqual([]);
    expect(await merge(r)).toMatchObject({ status: 409, body: { error: 'Merge request is not open' } });

    expect(await patch(r, { state: 'open', title: 'Add four, take two' }, carol.token)).toMatchObject({ status: 200, body: { state: 'open', title: 'Add four, take two', head_sha: await tip(r, 'feature') } });
    // newest first; one PATCH records its edit before its state change
    expect((await activity(r)).map((a) => a.action)).toEqual(['reopen_mr', 'update_mr', 'close_mr', 'update_mr', 'create_mr']);
    expect((await activity(r))[1]).toMatchObject({ user_id: carol.id, data: { mr_number: 1, changes: { title: { from: 'Add four', to: 'Add four, take two' } } } });
  });

  it('when the merge request is merged, then closing and reopening answer 409', async () => {
    const r = await repo();
    await open(r);
    expect((await merge(r)).status).toBe(200);
    expect(await patch(r, { state: 'closed' }, alice.token)).toMatchObject({ status: 409, body: { error: 'Merge request is already merged' } });
    expect(await patch(r, { state: 'open' }, alice.token)).toMatchObject({ status: 409, body: { error: 'Merge request is already merged' } });
  });
});

describe('following the source branch', () => {
  it('when the source is pushed, then head_sha follows (source_sha stays), the commits list grows, and a `merge_request.*` webhook gets `synchronize`', async () => {
    const r = await repo();
    const hook = await api(gh, 'POST', `${r.path}/webhooks`, { token: alice.token, body: { url: `${receiver.url}/${r.name}`, events: 'merge_request.*' } });
    expect(hook.status).toBe(201);
    const created = (await open(r)).body;
    const before = await tip(r, 'feature');
    const after = await commitOn(r, 'feature', { 'b.txt': 'b\n' }, 'second step');
    await git(r.wd, 'push', '-q', r.remote, 'feature');

    const d = await eventually(async () => {
      const res = await detail(r);
      return res.body.head_sha === after ? res.body : undefined;
    });
    expect(d).toMatchObject({ source_sha: after, head_sha: after });
    expect((await api(gh, 'GET', `${r.path}/merge-requests`)).body[0]).toMatchObject({ source_sha: created.source_sha, head_sha: after });
    expect((await activity(r))[0]).toMatchObject({ action: 'push_mr', user_id: carol.id, data: { before, after, new_commits: 1, forced: false } });
    const commits = await api(gh, 'GET', `${r.path}/merge-requests/1/commits`);
    expect(commits.body.map((c: { sha: string; message: string }) => [c.sha, c.message])).toEqual([
      [before, 'feature work\n'],
      [after, 'second step\n'],
    ]);

    const actions = await eventually(() => {
      const got = receiver.received.filter((d) => d.path === `/${r.name}`).map((d) => d.body.action);
      return got.includes('synchronize') ? got : undefined;
    });
    expect(actions).toEqual(['opened', 'synchronize']);
    const sync = receiver.received.find((d) => d.path === `/${r.name}` && d.body.action === 'synchronize')!;
    expect(sync.event).toBe('merge_request');
    expect(sync.body).toMatchObject({ event: 'merge_request', sender: { username: 'carol' }, merge_request: { number: 1, title: 'Add four', state: 'open', head_sha: after }, before, after });
  });

  it('when the source is rebased and force-pushed, then head_sha is the new tip and the push is recorded as forced', async () => {
    const r = await repo();
    await open(r);
    const before = await tip(r, 'feature');
    await commitOn(r, 'main', { 'README.md': 'hello again\n' }, 'main moves on');
    await git(r.wd, 'push', '-q', r.remote, 'main');
    await git(r.wd, 'checkout', '-q', 'feature');
    await git(r.wd, 'rebase', '-q', 'main');
    const after = await tip(r, 'feature');
    await git(r.wd, 'push', '-q', '--force', r.remote, 'feature');
    await eventually(async () => ((await detail(r)).body.head_sha === after ? true : undefined));
    // new_commits counts `git rev-list before..after`: the rebased commit and main's commit under it
    expect((await activity(r)).find((a) => a.action === 'push_mr')).toMatchObject({ user_id: carol.id, data: { before, after, forced: true, new_commits: 2 } });
  });

  it('when the source is pushed into the target, then the merge request is merged by itself: merged_sha the head, merged_by the pusher', async () => {
    const r = await repo();
    const hook = await api(gh, 'POST', `${r.path}/webhooks`, { token: alice.token, body: { url: `${receiver.url}/${r.name}`, events: 'merge_request' } });
    expect(hook.status).toBe(201);
    await open(r);
    const head = await tip(r, 'feature');
    await git(r.wd, 'push', '-q', r.remote, 'feature:main');
    const d = await eventually(async () => {
      const res = await detail(r);
      return res.body.state === 'merged' ? res.body : undefined;
    });
    expect(d).toMatchObject({ merged_sha: head, merged_by: carol.id });
    expect((await activity(r))[0]).toMatchObject({ action: 'merge_mr', user_id: carol.id, data: { mr_number: 1, merged_sha: head } });
    // the seed's `merge_request` webhook: exactly one delivery, the seed's payload
    await eventually(() => (receiver.received.some((x) => x.path === `/${r.name}`) ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.filter((x) => x.path === `/${r.name}`).map((x) => x.body)).toEqual([
      { event: 'merge_request', action: 'merged', repository: { owner: 'alice', name: r.name, full_name: `alice/${r.name}` }, sender: { username: 'alice' }, merge_request: { number: 1, title: 'Add four', state: 'merged' } },
    ]);
  });

  it('when the source branch is deleted and pushed again with other history, then it stays open, and the new head is followed as a force push', async () => {
    const r = await repo();
    await open(r);
    const head = await tip(r, 'feature');
    await git(r.wd, 'push', '-q', r.remote, ':feature');
    await eventually(async () => ((await activity(r))[0]?.action === 'push_mr' ? true : undefined));
    expect((await activity(r))[0]).toMatchObject({ user_id: carol.id, data: { before: head, deleted: true } });
    expect((await detail(r)).body).toMatchObject({ state: 'open', mergeable: null });
    expect(await merge(r)).toMatchObject({ status: 404, body: { error: 'Source branch not found: feature' } });
    // the "replace a branch's history": the merge request notices
    await git(r.wd, 'checkout', '-q', '-b', 'other', 'main');
    const other = await commitOn(r, 'other', { 'c.txt': 'c\n' }, 'other history');
    await git(r.wd, 'push', '-q', r.remote, 'other:feature');
    await eventually(async () => ((await detail(r)).body.head_sha === other ? true : undefined));
    expect((await activity(r))[0]).toMatchObject({ action: 'push_mr', data: { after: other, forced: true } });
  });
});

describe('merge options', () => {
  it('when squashed, then one parent (the target tip) and the tree `git merge-tree --write-tree` gives; author the MR author, committer the merger', async () => {
    const r = await repo();
    await open(r);
    await commitOn(r, 'feature', { 'b.txt': 'b\n' }, 'second step');
    await git(r.wd, 'push', '-q', r.remote, 'feature');
    const mainTip = await commitOn(r, 'main', { 'README.md': 'hello again\n' }, 'main moves on');
    await git(r.wd, 'push', '-q', r.remote, 'main');
    const tree = (await git(r.wd, 'merge-tree', '--write-tree', 'main', 'feature')).trim();

    const res = await merge(r, { strategy: 'squash' });
    expect(res).toMatchObject({ status: 200, body: { merged: true, strategy: 'squash' } });
    await git(r.wd, 'fetch', '-q', r.remote, 'main');
    const sha = res.body.sha as string;
    expect(await tip(r, 'FETCH_HEAD')).toBe(sha);
    expect((await git(r.wd, 'rev-list', '--parents', '-n', '1', sha)).trim().split(' ').slice(1)).toEqual([mainTip]);
    expect(await tip(r, `${sha}^{tree}`)).toBe(tree);
    expect((await git(r.wd, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', sha)).trim()).toBe('bob <bob@example.com>|carol <carol@example.com>|Add four (#1)\n\n* feature work\n* second step');
    expect((await detail(r)).body).toMatchObject({ state: 'merged', merged_sha: sha, merged_by: carol.id });
  });

  it('when sha is not the head, then 409 `Head branch was modified`; fast-forward-only after main moved: 409; unknown strategy: 400; nothing moved', async () => {
    const r = await repo();
    await open(r);
    const mainTip = await commitOn(r, 'main', { 'README.md': 'moved\n' }, 'main moves on');
    await git(r.wd, 'push', '-q', r.remote, 'main');
    expect(await merge(r, { sha: mainTip })).toMatchObject({ status: 409, body: { error: 'Head branch was modified' } });
    expect(await merge(r, { strategy: 'fast-forward-only' })).toMatchObject({ status: 409, body: { error: 'Fast-forward merge is not possible' } });
    expect(await merge(r, { strategy: 'rebase' })).toMatchObject({ status: 400, body: { error: 'strategy must be one of: merge-commit, squash, fast-forward-only' } });
    expect((await git(r.wd, 'ls-remote', r.remote, 'refs/heads/main')).split('\t')[0]).toBe(mainTip);
    expect((await detail(r)).body.state).toBe('open');
  });

  it('when delete_source_branch with the reviewed sha, then merged and the source branch is gone', async () => {
    const r = await repo();
    await open(r);
    const head = await tip(r, 'feature');
    expect(await merge(r, { sha: head, delete_source_branch: true })).toMatchObject({ status: 200, body: { merged: true, sha: head, strategy: 'fast-forward', source_branch_deleted: true } });
    expect(await git(r.wd, 'ls-remote', r.remote, 'refs/heads/feature')).toBe('');
    expect((await detail(r)).body).toMatchObject({ state: 'merged', merged_sha: head });
  });
});
