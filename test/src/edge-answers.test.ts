import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, sample, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * docs/decisions/gateway-serves-warm-reads.md: the gateway answers a warm browse read from the answers it keeps, after
 * admission, while git-storage's ref watch says the refs are unchanged. A push is seen by the very
 * next read, however busy the repository; a caller who lost access, or a changed default branch,
 * never gets a kept body.
 */

let gh: TestGithost;
let alice: TestUser;
let carol: TestUser;

const answerHits = async () => sample(await (await fetch(gh.metricsUrl)).text(), 'githost_gateway_edge_answers_total', { result: 'hit' }) ?? 0;

async function get(path: string, token?: string) {
  const res = await api(gh, 'GET', path, token ? { token } : {});
  return { status: res.status, body: res.body as { commit?: string; commits?: Array<{ sha: string }>; branches?: Array<{ name: string; sha: string }>; error?: string } };
}

/** Reads `path` until the gateway answers it from a kept answer (its watch of git-storage may take a moment to go live). */
async function keptAtEdge(path: string, token?: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    expect((await get(path, token)).status).toBe(200);
    const hits = await answerHits();
    expect((await get(path, token)).status).toBe(200);
    if ((await answerHits()) > hits) return;
    if (Date.now() > deadline) throw new Error('the gateway never answered from a kept answer');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function pushed(work: string, repo: string, files: Record<string, string>, branch = 'main'): Promise<string> {
  const sha = await commitFiles(work, files, `commit ${Object.keys(files).join(',')}`);
  await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), `HEAD:refs/heads/${branch}`);
  return sha;
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  carol = await createUser(gh, 'carol');
  for (const name of ['busy', 'vis', 'dflt']) await createRepo(gh, alice.token, name);
  await createRepo(gh, alice.token, 'team', { private: true });
  await addCollaborator(gh, alice.token, 'alice', 'team', 'carol', 'read');
  const work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# edge\n' }, 'first');
  for (const repo of ['busy', 'vis', 'dflt', 'team']) await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'main:main');
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('read-your-writes with answers kept at the edge', () => {
  it('when readers keep the same reads warm at the edge, then a read right after each push sees the pushed commit', async () => {
    const work = makeWorkdir();
    await git(work, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'busy'), '.');
    const reads = ['/api/repos/alice/busy/tree/main', '/api/repos/alice/busy/commits/main?limit=1', '/api/repos/alice/busy/branches', '/api/repos/alice/busy/tree/'];
    for (const path of reads) await keptAtEdge(path);
    const hitsBefore = await answerHits();
    let stop = false;
    const reader = async (i: number) => {
      while (!stop) await get(reads[i % reads.length]!);
    };
    const readers = Array.from({ length: 12 }, (_, i) => reader(i));
    try {
      for (let i = 0; i < 5; i++) {
        const sha = await pushed(work, 'busy', { [`ryw-${i}.txt`]: `push ${i}\n` });
        const [tree, commits, branches, root] = await Promise.all(reads.map((path) => get(path)));
        expect([tree!.body.commit, commits!.body.commits?.[0]?.sha, branches!.body.branches?.find((b) => b.name === 'main')?.sha, root!.body.commit]).toEqual([sha, sha, sha, sha]);
        // and again, now that the new answers may be the kept ones
        expect((await get(reads[0]!)).body.commit).toBe(sha);
      }
    } finally {
      stop = true;
      await Promise.all(readers);
    }
    // The readers were answered at the edge in between: the cache was in play throughout.
    expect(await answerHits()).toBeGreaterThan(hitsBefore);
  }, 120_000);
});

describe('what a kept answer looks like', () => {
  it('when raw and blob are read warm, then the gateway answers with the headers and bytes browse sent', async () => {
    for (const path of ['/api/repos/alice/busy/raw/main/README.md', '/api/repos/alice/busy/blob/main/README.md']) {
      const read = async () => {
        const res = await fetch(gh.url + path);
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => {
          // The gateway's own, per request: Date, X-Request-Id, its rate-limit budget.
          if (!['date', 'x-request-id', 'connection', 'keep-alive'].includes(name) && !name.startsWith('ratelimit-')) headers[name] = value;
        });
        return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()).toString('base64') };
      };
      const first = await read();
      await keptAtEdge(path);
      const hits = await answerHits();
      expect(await read()).toEqual(first);
      expect(await answerHits()).toBe(hits + 1);
    }
  });
});

describe('access and default branch with answers kept at the edge', () => {
  it('when a public repository turns private, then an anonymous reader gets 404, never the kept body', async () => {
    const path = '/api/repos/alice/vis/blob/main/README.md';
    await keptAtEdge(path);
    expect((await api(gh, 'PATCH', '/api/repos/alice/vis', { token: alice.token, body: { private: true } })).status).toBe(200);
    expect(await get(path)).toEqual({ status: 404, body: { error: 'Not found' } });
    expect((await get(path, alice.token)).status).toBe(200);
  });

  it('when a collaborator is removed, then their next read of a kept answer is 404', async () => {
    const path = '/api/repos/alice/team/tree/main';
    await keptAtEdge(path, carol.token);
    expect((await api(gh, 'DELETE', '/api/repos/alice/team/collaborators/carol', { token: alice.token })).status).toBe(204);
    expect(await get(path, carol.token)).toEqual({ status: 404, body: { error: 'Not found' } });
    expect(await get(path)).toEqual({ status: 404, body: { error: 'Not found' } });
  });

  it('when the default branch changes, then a read without a ref answers for the new default branch', async () => {
    const work = makeWorkdir();
    await git(work, 'clone', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'dflt'), '.');
    const dev = await pushed(work, 'dflt', { 'DEV.md': 'dev\n' }, 'dev');
    const main = (await get('/api/repos/alice/dflt/tree/main')).body.commit;
    expect(main).not.toBe(dev);
    const path = '/api/repos/alice/dflt/tree/';
    await keptAtEdge(path);
    expect((await get(path)).body.commit).toBe(main);
    expect((await api(gh, 'PATCH', '/api/repos/alice/dflt', { token: alice.token, body: { default_branch: 'dev' } })).status).toBe(200);
    expect((await get(path)).body.commit).toBe(dev);
  });
});
