import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, commitFiles, createRepo, createUsers, edgeAnswerHits, git, giteaRead, keptAtEdge as keptAt, makeWorkdir, pushUrl, sample, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * docs/decisions/gitea-api.md#warm-reads-at-the-edge: the gateway keeps the Gitea face's content
 * answers (contents, raw, trees, commits, tags, compare) as it keeps browse's, answers them after
 * admission while the refs are unchanged, and never to a caller who may not read the repository.
 */
let gh: TestGithost;
let ann: TestUser;
let cat: TestUser;
let dan: TestUser;

const answerHits = () => edgeAnswerHits(gh);
const notModifiedHits = async () => sample(await (await fetch(gh.metricsUrl)).text(), 'githost_gateway_edge_validators_total', { result: 'hit' }) ?? 0;

const gitea = (path: string, token?: string, headers: Record<string, string> = {}) => giteaRead(gh, path, token, headers);

const contentOf = (text: string) => Buffer.from((JSON.parse(text) as { content: string }).content, 'base64').toString();

const keptAtEdge = (path: string, token?: string) => keptAt(gh, path, token);

beforeAll(async () => {
  gh = await startTestGithost();
  [ann, cat, dan] = await createUsers(gh, 'ann', 'cat', 'dan');
  await createRepo(gh, ann.token, 'open');
  await createRepo(gh, ann.token, 'closed', { private: true });
  await addCollaborator(gh, ann.token, 'ann', 'closed', 'cat', 'read');
  const wd = makeWorkdir();
  await commitFiles(wd, { 'config.json': '{"v":0}\n', 'src/a.ts': 'export {};\n' }, 'first');
  for (const repo of ['open', 'closed']) await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', repo), 'main:main');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('Gitea content reads kept at the edge', () => {
  it('when a file is read again, then the kept answer is sent with its validators, and a client holding the ETag gets 304', async () => {
    const path = '/repos/ann/open/contents/config.json?ref=main';
    const kept = await keptAtEdge(path, ann.token);
    expect(contentOf(kept)).toBe('{"v":0}\n');
    const again = await gitea(path, ann.token);
    expect([again.text, again.cacheControl]).toEqual([kept, 'no-cache']);
    expect(again.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const hits = await notModifiedHits();
    expect((await gitea(path, ann.token, { 'if-none-match': again.etag! })).status).toBe(304);
    expect(await notModifiedHits()).toBe(hits + 1);
    // Anonymous readers of a public repository share the kept answer; raw, trees and commits are kept too.
    expect((await gitea(path)).text).toBe(kept);
    for (const other of ['/repos/ann/open/raw/src/a.ts', '/repos/ann/open/git/trees/main?recursive=1', '/repos/ann/open/commits?limit=1', '/repos/ann/open/contents']) await keptAtEdge(other);
  });

  it('when a private repository\'s file is kept for a reader, then a stranger, anonymous or signed in, still gets Gitea\'s 404 and no kept body', async () => {
    const path = '/repos/ann/closed/contents/config.json?ref=main';
    const kept = await keptAtEdge(path, cat.token);
    expect(contentOf(kept)).toBe('{"v":0}\n');
    expect((await gitea(path, cat.token)).cacheControl).toBe('private, no-cache');
    const hits = await answerHits();
    for (const token of [undefined, dan.token]) {
      const refused = await gitea(path, token);
      expect([refused.status, refused.etag, (JSON.parse(refused.text) as { url?: string }).url]).toEqual([404, null, `http://localhost:${gh.port}/api/swagger`]);
      expect(refused.text).not.toContain('content');
    }
    // A made-up token in Gitea's query form is the face's to refuse, never answered from the edge.
    expect((await gitea(`${path}&token=made-up`)).status).toBe(401);
    expect(await answerHits()).toBe(hits);
  });

  it('when a push lands, then the very next contents read shows the new content, with a ref and without', async () => {
    const wd = makeWorkdir();
    await git(wd, 'clone', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'open'), '.');
    const paths = ['/repos/ann/open/contents/config.json?ref=main', '/repos/ann/open/contents/config.json', '/repos/ann/open/raw/config.json'];
    for (const path of paths) await keptAtEdge(path, ann.token);
    for (let i = 1; i <= 3; i++) {
      await commitFiles(wd, { 'config.json': `{"v":${i}}\n` }, `v${i}`);
      await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'open'), 'HEAD:refs/heads/main');
      const [withRef, withoutRef, raw] = await Promise.all(paths.map((path) => gitea(path, ann.token)));
      expect([contentOf(withRef!.text), contentOf(withoutRef!.text), raw!.text]).toEqual([`{"v":${i}}\n`, `{"v":${i}}\n`, `{"v":${i}}\n`]);
      // and again, now that the new answers may be the kept ones
      expect(contentOf((await gitea(paths[0]!, ann.token)).text)).toBe(`{"v":${i}}\n`);
    }
  });
});
