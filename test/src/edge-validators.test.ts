import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, sample, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * docs/architecture.md#the-services: the gateway answers a conditional browse read 304 itself while git-storage's ref watch
 * says the repository's refs are unchanged, and never once a push or a lost grant changed the answer.
 */

let gh: TestGithost;
let alice: TestUser;
let carol: TestUser;
let work: string;
let browseMetrics: string;

/** The value of `name`'s sample with `labels` at `url`, 0 when there is none. */
async function scrape(url: string, name: string, labels: Record<string, string>): Promise<number> {
  return sample(await (await fetch(url)).text(), name, labels) ?? 0;
}

/** Requests browse itself answered on the tree endpoint. */
const browseTreeRequests = () => scrape(browseMetrics, 'githost_browse_http_request_duration_seconds_count', { route: '/api/repos/:owner/:repo/tree' });
const edgeHits = () => scrape(gh.metricsUrl, 'githost_gateway_edge_validators_total', { result: 'hit' });

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await api(gh, 'GET', path, { headers });
  return { status: res.status, etag: res.headers.get('etag'), cacheControl: res.headers.get('cache-control'), body: res.body as { commit?: string } | null };
}

/** The first 304 the gateway answers itself, once its watch of git-storage is live. */
async function firstEdgeAnswer(path: string, headers: Record<string, string> = {}): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { etag } = await get(path, headers);
    const hits = await edgeHits();
    expect((await get(path, { ...headers, 'if-none-match': etag! })).status).toBe(304);
    if ((await edgeHits()) > hits) return etag!;
    if (Date.now() > deadline) throw new Error('the gateway never answered 304 itself');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  gh = await startTestGithost();
  browseMetrics = gh.metricsUrl;
  alice = await createUser(gh, 'alice');
  carol = await createUser(gh, 'carol');
  await createRepo(gh, alice.token, 'demo');
  await createRepo(gh, alice.token, 'secret', { private: true });
  await addCollaborator(gh, alice.token, 'alice', 'secret', 'carol', 'read');
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# demo\n' }, 'first');
  for (const repo of ['demo', 'secret']) await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'main:main');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('conditional browse reads answered at the edge', () => {
  it('when the tree was read, then the same conditional read is 304 with browse\'s validators and browse never sees it', async () => {
    const path = '/api/repos/alice/demo/tree/main';
    const etag = await firstEdgeAnswer(path);
    const before = await browseTreeRequests();
    const res = await get(path, { 'if-none-match': etag });
    expect([res.status, res.etag, res.cacheControl]).toEqual([304, etag, 'no-cache']);
    expect(await browseTreeRequests()).toBe(before);
  });

  it('when a new commit was pushed, then the same conditional read is 200 with the new commit and a new ETag', async () => {
    const path = '/api/repos/alice/demo/tree/main';
    const etag = await firstEdgeAnswer(path);
    const sha = await commitFiles(work, { 'NEW.md': 'new\n' }, 'second');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main:main');
    const res = await get(path, { 'if-none-match': etag });
    expect([res.status, res.body?.commit]).toEqual([200, sha]);
    expect(res.etag).not.toBe(etag);
  });

  it('when a reader of a private repository lost access, then the same conditional read is 404, never 304', async () => {
    const path = '/api/repos/alice/secret/tree/main';
    const etag = await firstEdgeAnswer(path, { authorization: `Bearer ${carol.token}` });
    expect((await api(gh, 'DELETE', '/api/repos/alice/secret/collaborators/carol', { token: alice.token })).status).toBe(204);
    expect((await get(path, { authorization: `Bearer ${carol.token}`, 'if-none-match': etag })).status).toBe(404);
    expect((await get(path, { 'if-none-match': etag })).status).toBe(404);
  });
});
