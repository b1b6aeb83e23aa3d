import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, commitFiles, createBranchedRepo, createRepo, createUsers, edgeAnswerHits, git, giteaRead, keptAtEdge as keptAt, startTestGithost, type BranchedRepo, type TestGithost, type TestUser } from './support/index.js';

/**
 * docs/decisions/pulls-at-the-edge.md: the gateway keeps the Gitea face's pull request list by the
 * repository's refs version and its facts version (merge requests, reviews, settings) and the
 * caller's permission, and every write that changes what the list shows is announced to the
 * gateway before it returns: the list read right after any write shows it.
 */
let gh: TestGithost;
let ann: TestUser; // owner
let bob: TestUser; // write collaborator
let dan: TestUser; // no access
let r: BranchedRepo;

const LIST = '/repos/ann/app/pulls?state=open&limit=50';

type Pull = { number: number; title: string; state: string; merged: boolean; mergeable: boolean; requested_reviewers: Array<{ login: string }>; head: { sha: string }; base: { repo: { description: string; permissions: unknown } } };

const answerHits = () => edgeAnswerHits(gh);

const gitea = (path: string, token?: string, headers: Record<string, string> = {}) => giteaRead(gh, path, token, headers);

const pulls = (text: string) => JSON.parse(text) as Pull[];

const keptAtEdge = async (path: string, token?: string) => pulls(await keptAt(gh, path, token));

/** The open list as ann reads it right now (from the edge or not). */
const openList = async (token = ann.token) => pulls((await gitea(LIST, token)).text);

const mr = (body: Record<string, unknown>) => api(gh, 'POST', `${r.path}/merge-requests`, { token: bob.token, body });

beforeAll(async () => {
  gh = await startTestGithost();
  [ann, bob, dan] = await createUsers(gh, 'ann', 'bob', 'dan');
  r = await createBranchedRepo(gh, ann, 'app', {
    collaborators: { bob: 'write' },
    mainFiles: { 'README.md': 'hello\n', 'x.txt': 'base\n' },
    branch: 'f1',
    branchFiles: { 'a.txt': 'one\n' },
  });
  await git(r.wd, 'push', '-q', r.remote, 'f1:refs/heads/f2', 'f1:refs/heads/f3');
  expect((await mr({ title: 'First', source_branch: 'f1', target_branch: 'main' })).status).toBe(201);
  await createRepo(gh, ann.token, 'closed', { private: true });
}, 240_000);

afterAll(async () => {
  await gh?.stop();
});

describe('the Gitea pull request list kept at the edge', () => {
  it('when the list is read again, then the edge answers it, a held ETag gets 304, and an anonymous reader gets its own answer (no permissions)', async () => {
    const kept = await keptAtEdge(LIST, ann.token);
    expect(kept.map((p) => [p.number, p.title, p.mergeable])).toEqual([[1, 'First', true]]);
    const again = await gitea(LIST, ann.token);
    expect(again.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.total).toBe('1');
    const hits = await answerHits();
    expect((await gitea(LIST, ann.token, { 'if-none-match': again.etag! })).status).toBe(304);
    // The owner's answer shows admin permissions; an anonymous reader's shows none, kept apart.
    expect(kept[0]!.base.repo.permissions).toEqual({ admin: true, push: true, pull: true });
    const anonymous = await keptAtEdge(LIST);
    expect(anonymous[0]!.base.repo.permissions).toEqual({ admin: false, push: false, pull: true });
    expect(await answerHits()).toBeGreaterThan(hits);
  });

  it('when a stranger asks for a private repository\'s list kept for its owner, then Gitea\'s 404 and no kept body', async () => {
    const path = '/repos/ann/closed/pulls?state=open&limit=50';
    expect(await keptAtEdge(path, ann.token)).toEqual([]);
    const hits = await answerHits();
    for (const token of [undefined, dan.token]) {
      const refused = await gitea(path, token);
      expect([refused.status, refused.etag]).toEqual([404, null]);
    }
    expect(await answerHits()).toBe(hits);
  });

  it('when a merge request is opened through githost\'s API, then the very next list shows it', async () => {
    await keptAtEdge(LIST, ann.token);
    expect((await mr({ title: 'Second', source_branch: 'f2', target_branch: 'main' })).status).toBe(201);
    expect((await openList()).map((p) => p.title)).toEqual(['Second', 'First']);
  });

  it('when reviews are asked for and given, then the very next list shows whose are pending', async () => {
    await keptAtEdge(LIST, ann.token);
    const res = await fetch(`${gh.url}/api/v1/repos/ann/app/pulls/1/requested_reviewers`, { method: 'POST', headers: { authorization: `token ${bob.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ reviewers: ['ann'] }) });
    expect(res.status).toBe(201);
    expect((await openList()).find((p) => p.number === 1)!.requested_reviewers.map((u) => u.login)).toEqual(['ann']);
    await keptAtEdge(LIST, ann.token);
    const review = await api(gh, 'POST', `${r.path}/merge-requests/1/reviews`, { token: ann.token, body: { event: 'approve', body: 'ok' } });
    expect(review.status).toBe(201);
    expect((await openList()).find((p) => p.number === 1)!.requested_reviewers).toEqual([]);
  });

  it('when a push to a head branch makes it conflict, then the very next list shows it not mergeable', async () => {
    await git(r.wd, 'checkout', '-q', 'main');
    await commitFiles(r.wd, { 'x.txt': 'main\n' }, 'main moves');
    await git(r.wd, 'push', '-q', r.remote, 'main');
    await git(r.wd, 'checkout', '-q', 'f1');
    await commitFiles(r.wd, { 'x.txt': 'f1\n' }, 'f1 conflicts');
    expect((await keptAtEdge(LIST, ann.token)).find((p) => p.number === 1)!.mergeable).toBe(true);
    await git(r.wd, 'push', '-q', r.remote, 'f1');
    expect((await openList()).find((p) => p.number === 1)!.mergeable).toBe(false);
  });

  it('when the repository\'s description changes, then the very next list shows it', async () => {
    expect((await keptAtEdge(LIST, ann.token))[0]!.base.repo.description).toBe('');
    expect((await api(gh, 'PATCH', r.path, { token: ann.token, body: { description: 'Now described' } })).status).toBe(200);
    expect((await openList())[0]!.base.repo.description).toBe('Now described');
  });

  it('when a pull request is closed through the Gitea face, then the very next list leaves it out', async () => {
    await keptAtEdge(LIST, ann.token);
    const res = await fetch(`${gh.url}/api/v1/repos/ann/app/pulls/1`, { method: 'PATCH', headers: { authorization: `token ${ann.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ state: 'closed' }) });
    expect(res.status).toBe(201);
    expect((await openList()).map((p) => p.number)).toEqual([2]);
  });

  it('when a merge request is merged, then the very next lists show it merged and no longer open', async () => {
    await keptAtEdge(LIST, ann.token);
    const closedPath = '/repos/ann/app/pulls?state=closed&limit=50';
    expect((await keptAtEdge(closedPath, ann.token)).map((p) => [p.number, p.merged])).toEqual([[1, false]]);
    expect((await api(gh, 'POST', `${r.path}/merge-requests/2/merge`, { token: ann.token })).status).toBe(200);
    expect(await openList()).toEqual([]);
    expect(pulls((await gitea(closedPath, ann.token)).text).map((p) => [p.number, p.merged])).toEqual([[2, true], [1, false]]);
  });
});
