import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CommitRecord } from '@githost/git-records';
import { API, EMPTY_REPO, startHarness, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

type CommitBody = CommitRecord;

const revParse = async (rev: string) => (await h.git('rev-parse', '--verify', '--end-of-options', rev)).trim();
const log = async (rev: string, n: number) => (await h.git('log', '--format=%H', `-n${n}`, '--end-of-options', rev)).split('\n').filter(Boolean);

/** The commit record as git itself prints it (%aI/%cI keep the recorded offset). */
async function gitCommit(sha: string): Promise<CommitBody> {
  const [tree, parents, an, ae, ad, cn, ce, cd] = (await h.git('show', '-s', '--format=%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI', sha)).split('\n') as string[];
  const raw = await h.git('cat-file', 'commit', sha);
  return {
    sha,
    tree: tree as string,
    parents: parents ? parents.split(' ') : [],
    author: { name: an as string, email: ae as string, date: ad as string },
    committer: { name: cn as string, email: ce as string, date: cd as string },
    message: raw.slice(raw.indexOf('\n\n') + 2),
  };
}

async function commits(refAndQuery: string): Promise<{ ref: string; commits: CommitBody[] }> {
  const res = await h.get(`${API}/commits/${refAndQuery}`);
  expect(res.status).toBe(200);
  return res.json() as { ref: string; commits: CommitBody[] };
}

describe('GET commits', () => {
  it('when the ref is empty, then 20 commits of the default branch in git log order and ref is its name', async () => {
    const body = await commits('');
    expect(body.ref).toBe('main');
    expect(body.commits.map((c) => c.sha)).toEqual(await log('refs/heads/main', 20));
  });

  it('when there is no trailing slash at all, then the default branch is used', async () => {
    const res = await h.get(`${API}/commits`);
    expect((res.json() as { ref: string }).ref).toBe('main');
  });

  it('when limit is 5, then exactly the 5 newest', async () => {
    expect((await commits('main?limit=5')).commits.map((c) => c.sha)).toEqual(await log('refs/heads/main', 5));
  });

  it('when limit is 100, then 100 commits as git log -n 100', async () => {
    expect((await commits('main?limit=100')).commits.map((c) => c.sha)).toEqual(await log('refs/heads/main', 100));
  });

  it('when limit is 150 on a 150-commit history, then capped at 100', async () => {
    expect((await commits('main?limit=150')).commits).toHaveLength(100);
  });

  it.each(['-5', '0', 'abc', '1e9', '5.5', ''])('when limit is %p, then the default 20', async (limit) => {
    expect((await commits(`main?limit=${encodeURIComponent(limit)}`)).commits).toHaveLength(20);
  });

  it('when limit is repeated, then the default 20', async () => {
    expect((await commits('main?limit=5&limit=7')).commits).toHaveLength(20);
  });

  it('when page is asked for (docs/decisions/gitea-api.md#commits), then the log page by page to its end, its length on every page, with Link while more remain; without it, no Link', async () => {
    const whole = await log('refs/heads/main', 1000);
    const first = await h.get(`${API}/commits/main?limit=100&page=1`);
    const second = await h.get(`${API}/commits/main?limit=100&page=2`);
    const shas = (res: typeof first) => (res.json() as { commits: CommitBody[] }).commits.map((c) => c.sha);
    expect([...shas(first), ...shas(second)]).toEqual(whole);
    expect(whole.length).toBeGreaterThan(100);
    expect(whole.length).toBeLessThanOrEqual(200);
    const total = String(whole.length);
    expect([first.headers.link, first.headers['x-total-count']]).toEqual([`<${API}/commits/main?limit=100&page=2>; rel="next", <${API}/commits/main?limit=100&page=2>; rel="last"`, total]);
    expect([second.headers.link, second.headers['x-total-count']]).toEqual([`<${API}/commits/main?limit=100&page=1>; rel="prev", <${API}/commits/main?limit=100&page=1>; rel="first"`, total]);
    const middle = await h.get(`${API}/commits/main?page=3&limit=7`);
    const last = Math.ceil(whole.length / 7);
    expect([shas(middle), middle.headers.link, middle.headers['x-total-count']]).toEqual([
      whole.slice(14, 21),
      `<${API}/commits/main?page=2&limit=7>; rel="prev", <${API}/commits/main?page=4&limit=7>; rel="next", <${API}/commits/main?page=${last}&limit=7>; rel="last", <${API}/commits/main?page=1&limit=7>; rel="first"`,
      total,
    ]);
    const unpaged = await h.get(`${API}/commits/main?limit=100`);
    expect([unpaged.headers.link, unpaged.headers['x-total-count']]).toEqual([undefined, undefined]);
    const past = await h.get(`${API}/commits/main?limit=100&page=9`);
    expect([shas(past), past.headers['x-total-count']]).toEqual([[], total]);
    for (const page of ['0', 'abc', '1e3', '2&page=3']) {
      const res = await h.get(`${API}/commits/main?page=${page}`);
      expect([res.status, res.json()]).toEqual([400, { error: 'page must be an integer from 1 to 1000000' }]);
    }
  });

  it('when path is asked for (docs/decisions/gitea-api.md#commits), then only the commits touching it, as git log -- path lists them, paged; a path outside the repository or repeated is 400', async () => {
    const shas = (res: Awaited<ReturnType<typeof h.get>>) => (res.json() as { commits: CommitBody[] }).commits.map((c) => c.sha);
    const whole = await log('refs/heads/main', 1000);
    for (const path of (await h.git('ls-tree', '--name-only', 'main')).split('\n').filter(Boolean)) {
      const touching = (await h.git('log', '--format=%H', '-n1000', 'refs/heads/main', '--', path)).split('\n').filter(Boolean);
      const res = await h.get(`${API}/commits/main?limit=100&path=${encodeURIComponent(path)}`);
      expect([path, res.status, shas(res)]).toEqual([path, 200, touching.slice(0, 100)]);
      expect(touching.length).toBeLessThanOrEqual(whole.length);
    }
    const [first] = (await h.git('ls-tree', '--name-only', 'main')).split('\n');
    const paged = await h.git('log', '--format=%H', '-n3', 'refs/heads/main', '--', first!);
    const byPath = await h.get(`${API}/commits/main?limit=1&page=2&path=${encodeURIComponent(first!)}`);
    const touchingFirst = (await h.git('rev-list', '--count', 'refs/heads/main', '--', first!)).trim();
    expect([shas(byPath), byPath.headers['x-total-count']]).toEqual([paged.split('\n').filter(Boolean).slice(1, 2), touchingFirst]);
    const nothing = await h.get(`${API}/commits/main?limit=5&path=no/such/file`);
    expect([shas(nothing), nothing.headers['x-total-count']]).toEqual([[], '0']);
    // Pathspec magic is taken literally: no file is named so.
    expect(shas(await h.get(`${API}/commits/main?limit=5&path=${encodeURIComponent(':(glob)**')}`))).toEqual([]);
    for (const bad of ['..', 'a/../b', 'a//b', '.', 'x&path=y']) {
      const res = await h.get(`${API}/commits/main?path=${bad.includes('&') ? bad : encodeURIComponent(bad)}`);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });

  it('when not is asked for (docs/decisions/gitea-api.md#not), then the log without the history of that branch, tag, commit or ancestry expression, paged and counted; an unknown one is 404, a range or a search 400, a repeated one 400', async () => {
    const shas = (res: Awaited<ReturnType<typeof h.get>>) => (res.json() as { commits: CommitBody[] }).commits.map((c) => c.sha);
    const revList = async (...args: string[]) => (await h.git('rev-list', ...args)).split('\n').filter(Boolean);
    const withoutFeature = await revList('refs/heads/main', '^refs/heads/feature/x');
    expect(withoutFeature).toHaveLength(10);
    const first = await h.get(`${API}/commits/main?limit=4&not=feature/x`);
    expect([first.status, shas(first), first.headers['x-total-count']]).toEqual([200, withoutFeature.slice(0, 4), '10']);
    expect(first.headers.link).toBe(`<${API}/commits/main?limit=4&not=feature%2Fx&page=2>; rel="next", <${API}/commits/main?limit=4&not=feature%2Fx&page=3>; rel="last"`);
    const last = await h.get(`${API}/commits/main?limit=4&not=feature/x&page=3`);
    expect([shas(last), last.headers['x-total-count']]).toEqual([withoutFeature.slice(8), '10']);
    expect(last.headers.link).toBe(`<${API}/commits/main?limit=4&not=feature%2Fx&page=2>; rel="prev", <${API}/commits/main?limit=4&not=feature%2Fx&page=1>; rel="first"`);
    // An annotated tag is peeled; a full commit id is confirmed first; the branch itself leaves nothing.
    const withoutTag = await revList('refs/heads/main', '^refs/tags/v1.0^{commit}');
    const byTag = await h.get(`${API}/commits/main?limit=100&not=v1.0`);
    expect([shas(byTag), byTag.headers['x-total-count']]).toEqual([withoutTag.slice(0, 100), String(withoutTag.length)]);
    const sha = await revParse('refs/heads/main~7');
    const bySha = await h.get(`${API}/commits/main?not=${sha}&limit=5`);
    const aboveSha = await revList('refs/heads/main', `^${sha}`);
    expect([shas(bySha), bySha.headers['x-total-count']]).toEqual([aboveSha.slice(0, 5), String(aboveSha.length)]);
    const itself = await h.get(`${API}/commits/main?not=main`);
    expect([itself.status, shas(itself), itself.headers['x-total-count']]).toEqual([200, [], '0']);
    const side = await revList('refs/heads/merged', '^refs/heads/main');
    const merged = await h.get(`${API}/commits/merged?not=main`);
    expect([shas(merged), merged.headers['x-total-count']]).toEqual([side, String(side.length)]);
    expect(side.length).toBeGreaterThan(1);
    // With a path: only the commits touching it, without that history.
    const touching = await revList('refs/heads/main', `^${sha}`, '--', 'counter.txt');
    const byPath = await h.get(`${API}/commits/main?path=counter.txt&not=${sha}`);
    expect([shas(byPath), byPath.headers['x-total-count']]).toEqual([touching, String(touching.length)]);
    for (const unknown of ['no-such-branch', 'd'.repeat(40), '--all']) {
      const res = await h.get(`${API}/commits/main?not=${encodeURIComponent(unknown)}`);
      expect([unknown, res.status, res.json()]).toEqual([unknown, 404, { error: `Ref not found: ${unknown}` }]);
    }
    // Revision expressions (docs/decisions/gitea-api.md#revision-expressions): ancestry steps are
    // git's meaning; a range, a negation or a search is refused, never handed to git.
    const parent = await h.get(`${API}/commits/main?not=${encodeURIComponent('main~1')}`);
    expect([parent.status, shas(parent), parent.headers['x-total-count']]).toEqual([200, [await revParse('refs/heads/main')], '1']);
    for (const refused of ['^main', 'main..feature/x', ':/counter']) {
      const res = await h.get(`${API}/commits/main?not=${encodeURIComponent(refused)}`);
      expect([refused, res.status, (res.json() as { error: string }).error]).toEqual([refused, 400, expect.stringContaining(`Unsupported revision expression: ${refused}`)]);
    }
    const twice = await h.get(`${API}/commits/main?not=main&not=v1.0`);
    expect([twice.status, twice.json()]).toEqual([400, { error: 'not must be given once' }]);
  });

  it('when the ref has slashes, then the whole remainder is the ref and is echoed', async () => {
    const body = await commits('feature/x?limit=3');
    expect([body.ref, body.commits.map((c) => c.sha)]).toEqual(['feature/x', await log('refs/heads/feature/x', 3)]);
  });

  it('when the ref is an annotated tag, then the log starts at the peeled commit', async () => {
    const body = await commits('v1.0?limit=2');
    expect(body.commits.map((c) => c.sha)).toEqual(await log('refs/tags/v1.0', 2));
  });

  it('when the ref is a full commit id, then the log starts there and is immutable', async () => {
    const sha = await revParse('refs/heads/main~7');
    const res = await h.get(`${API}/commits/${sha}?limit=3`);
    expect((res.json() as { commits: CommitBody[] }).commits.map((c) => c.sha)).toEqual(await log(sha, 3));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when a commit has two parents, then both are listed in order', async () => {
    const [merge] = (await commits('merged?limit=1')).commits;
    expect(merge?.parents).toEqual([await revParse('refs/heads/merged^1'), await revParse('refs/heads/merged^2')]);
  });

  it('when listing, then every record equals what git says, offsets and message included', async () => {
    const body = await commits('main?limit=3');
    expect(body.commits).toEqual(await Promise.all((await log('refs/heads/main', 3)).map(gitCommit)));
  });

  it('when the ref names nothing, then 404 Ref not found with the whole remainder', async () => {
    const res = await h.get(`${API}/commits/feature/y`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Ref not found: feature/y' }]);
  });

  it('when the ref is a full id that does not exist, then 404 Ref not found', async () => {
    const res = await h.get(`${API}/commits/${'a'.repeat(40)}`);
    expect([res.status, res.json()]).toEqual([404, { error: `Ref not found: ${'a'.repeat(40)}` }]);
  });
});

describe('GET commit', () => {
  it('when given a full id, then the record equals git and the answer is immutable', async () => {
    const sha = await revParse('refs/heads/main');
    const res = await h.get(`${API}/commit/${sha}`);
    expect(res.json()).toEqual(await gitCommit(sha));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when the root commit is asked, then parents is empty and the author offset +05:30 is kept', async () => {
    const root = (await h.git('rev-list', '--max-parents=0', 'refs/heads/main')).trim();
    const body = (await h.get(`${API}/commit/${root}`)).json() as CommitBody;
    expect([body.parents, body.author.date, body.message]).toEqual([[], '2023-11-15T03:43:20+05:30', 'Initial import\n\nWith a body.\n']);
  });

  it('when the committer is in UTC, then the date ends in +00:00', async () => {
    const body = (await h.get(`${API}/commit/${await revParse('refs/heads/main')}`)).json() as CommitBody;
    expect(body.committer.date.endsWith('+00:00')).toBe(true);
  });

  it('when given an abbreviated id, then the full record comes back and must be revalidated', async () => {
    const sha = await revParse('refs/heads/main~2');
    const res = await h.get(`${API}/commit/${sha.slice(0, 10)}`);
    expect([res.json(), res.headers['cache-control']]).toEqual([await gitCommit(sha), 'no-cache']);
  });

  it('when given an upper-case full id, then it is read as hex', async () => {
    const sha = await revParse('refs/heads/main~2');
    expect(((await h.get(`${API}/commit/${sha.toUpperCase()}`)).json() as CommitBody).sha).toBe(sha);
  });

  it('when the id does not exist, then 404 Commit not found', async () => {
    const res = await h.get(`${API}/commit/${'f'.repeat(40)}`);
    expect([res.status, res.json()]).toEqual([404, { error: `Commit not found: ${'f'.repeat(40)}` }]);
  });

  it('when the id names a blob, then 404 Commit not found', async () => {
    const blob = await revParse('refs/heads/main:README.md');
    expect((await h.get(`${API}/commit/${blob}`)).json()).toEqual({ error: `Commit not found: ${blob}` });
  });

  it('when the id is not hex, then 404 Commit not found', async () => {
    const res = await h.get(`${API}/commit/main`);
    expect([res.status, res.json()]).toEqual([404, { error: 'Commit not found: main' }]);
  });

  it('when the id is shorter than 4 hex digits, then 404 Commit not found', async () => {
    expect((await h.get(`${API}/commit/abc`)).json()).toEqual({ error: 'Commit not found: abc' });
  });

  it('when the ETag is repeated for a full id, then 304', async () => {
    const sha = await revParse('refs/heads/main~1');
    const first = await h.get(`${API}/commit/${sha}`);
    const again = await h.get(`${API}/commit/${sha}`, { headers: { 'If-None-Match': String(first.headers.etag) } });
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });
});

describe('objects are only served from the repository that holds them', () => {
  const other = { id: EMPTY_REPO, default_branch: 'trunk' };

  it.each(['commit/%s', 'tree/%s', 'tree/%s/src', 'blob/%s/README.md', 'raw/%s/README.md', 'commits/%s'])(
    'when %s was read (and cached) in one repository, then another repository without the commit still answers 404',
    async (pattern) => {
      const sha = (await h.git('rev-parse', 'refs/heads/main~4')).trim();
      const endpoint = pattern.replace('%s', sha);
      expect((await h.get(`${API}/${endpoint}`)).status).toBe(200);
      const res = await h.get(`/api/repos/alice/empty/${endpoint}`, { repo: other });
      expect([res.status, res.json()]).toEqual([404, { error: endpoint.startsWith('commit/') ? `Commit not found: ${sha}` : `Ref not found: ${sha}` }]);
    },
  );

  it('when the client replays an ETag from another repository, then the other repository still answers 404', async () => {
    const sha = (await h.git('rev-parse', 'refs/heads/main~4')).trim();
    const first = await h.get(`${API}/commit/${sha}`);
    const res = await h.get(`/api/repos/alice/empty/commit/${sha}`, { repo: other, headers: { 'If-None-Match': String(first.headers.etag) } });
    expect(res.status).toBe(404);
  });
});
