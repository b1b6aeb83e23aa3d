import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api, createBranchedRepo, createUsers, git, sample, startTestGithost, type BranchedRepo, type TestGithost, type TestUser } from './support/index.js';

/**
 * docs/decisions/pulls-at-the-edge.md across replicas: a write made through one gateway is seen by
 * the very next pull request list read through the other, which had the list kept at its edge
 * (each gateway watches git-storage, and an announcement returns only once both acked it).
 */
let gh: TestGithost;
let ann: TestUser;
let bob: TestUser;
let r: BranchedRepo;
let one: string;
let two: string;

const LIST = '/api/v1/repos/ann/app/pulls?state=open&limit=50';

type Pull = { number: number; title: string; requested_reviewers: Array<{ login: string }>; base: { repo: { description: string } } };

const twoHits = async () => sample(await (await fetch(`http://127.0.0.1:${gh.metricsPorts!['gateway 2']}/metrics`)).text(), 'githost_gateway_edge_answers_total', { result: 'hit' }) ?? 0;

async function listOn(base: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${LIST}`, { headers: { authorization: `token ${ann.token}` } });
  return { status: res.status, text: await res.text() };
}

/** Reads the list on the second gateway until it answers it from its edge. */
async function keptOnTwo(): Promise<Pull[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const first = await listOn(two);
    expect(first.status).toBe(200);
    const hits = await twoHits();
    const second = await listOn(two);
    if (second.text === first.text && (await twoHits()) > hits) return JSON.parse(second.text) as Pull[];
    if (Date.now() > deadline) throw new Error('the second gateway never answered from a kept answer');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const onTwo = async () => JSON.parse((await listOn(two)).text) as Pull[];

beforeAll(async () => {
  gh = await startTestGithost({ backend: 'real', replicas: 2 });
  [one, two] = gh.gatewayUrls! as [string, string];
  [ann, bob] = await createUsers(gh, 'ann', 'bob');
  r = await createBranchedRepo(gh, ann, 'app', { collaborators: { bob: 'write' }, mainFiles: { 'README.md': 'hello\n' }, branch: 'f1', branchFiles: { 'a.txt': 'one\n' } });
  await git(r.wd, 'push', '-q', r.remote, 'f1:refs/heads/f2');
  expect((await api({ url: one }, 'POST', `${r.path}/merge-requests`, { token: bob.token, body: { title: 'First', source_branch: 'f1', target_branch: 'main' } })).status).toBe(201);
}, 300_000);

afterAll(async () => {
  await gh?.stop();
});

describe('the Gitea pull request list kept on one gateway, written through another', () => {
  it('when a merge request is opened, a review asked for and the description changed through the first gateway, then each next list on the second shows it', async () => {
    expect((await keptOnTwo()).map((p) => p.title)).toEqual(['First']);
    expect((await api({ url: one }, 'POST', `${r.path}/merge-requests`, { token: bob.token, body: { title: 'Second', source_branch: 'f2', target_branch: 'main' } })).status).toBe(201);
    expect((await onTwo()).map((p) => p.title)).toEqual(['Second', 'First']);

    await keptOnTwo();
    const asked = await fetch(`${one}/api/v1/repos/ann/app/pulls/1/requested_reviewers`, { method: 'POST', headers: { authorization: `token ${bob.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ reviewers: ['ann'] }) });
    expect(asked.status).toBe(201);
    expect((await onTwo()).find((p) => p.number === 1)!.requested_reviewers.map((u) => u.login)).toEqual(['ann']);

    await keptOnTwo();
    expect((await api({ url: one }, 'PATCH', r.path, { token: ann.token, body: { description: 'Replicated' } })).status).toBe(200);
    expect((await onTwo())[0]!.base.repo.description).toBe('Replicated');

    await keptOnTwo();
    expect((await api({ url: one }, 'POST', `${r.path}/merge-requests/2/merge`, { token: ann.token })).status).toBe(200);
    expect((await onTwo()).map((p) => p.number)).toEqual([1]);
  });
});
