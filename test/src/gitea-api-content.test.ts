import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commitFiles, createRepo, createUsers, git, giteaClient, giteaFailure, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/gitea-api: repository content through gitea-js (`ContentsResponse`, raw,
 * `GitTreeResponse`, `Commit`, `Branch`, `Tag`, `Compare`), read from githost's browse endpoints.
 */
let gh: TestGithost;
let ann: TestUser;
let cat: TestUser;
let first: string;
let second: string;
let feature: string;
const BINARY = Buffer.from([0, 1, 2, 250, 251, 252, 10, 0]);

beforeAll(async () => {
  gh = await startTestGithost();
  [ann, cat] = await createUsers(gh, 'ann', 'cat');
  await createRepo(gh, ann.token, 'demo');
  await createRepo(gh, ann.token, 'secret', { private: true });
  const wd = makeWorkdir();
  first = await commitFiles(wd, { 'README.md': '# demo\n', 'src/app.ts': 'export const x = 1;\n', 'src/lib/util.ts': 'export {};\n', 'logo.bin': BINARY }, 'initial');
  await git(wd, 'tag', 'v1.0');
  second = await commitFiles(wd, { 'README.md': '# demo, second\n' }, 'second');
  await git(wd, 'checkout', '-q', '-b', 'feature/x');
  feature = await commitFiles(wd, { 'feature.txt': 'new\n' }, 'feature work');
  const remote = pushUrl(gh, 'ann', ann.token, 'ann', 'demo');
  await git(wd, 'push', '-q', remote, 'main', 'feature/x', 'v1.0');
  await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'secret'), 'main');
}, 240_000);

afterAll(async () => {
  await gh?.stop();
});

describe('Gitea API: contents and raw', () => {
  it('when a tool reads a file, then Gitea\'s ContentsResponse with the content base64 and its links', async () => {
    const { data } = await giteaClient(gh, ann.token).repos.repoGetContents('ann', 'demo', 'README.md', { ref: 'main' });
    expect(data).toMatchObject({
      name: 'README.md',
      path: 'README.md',
      type: 'file',
      size: 15,
      encoding: 'base64',
      content: Buffer.from('# demo, second\n').toString('base64'),
      last_commit_sha: second,
      url: `http://localhost:${gh.port}/api/v1/repos/ann/demo/contents/README.md?ref=main`,
      download_url: `http://localhost:${gh.port}/ann/demo/-/raw/main/README.md`,
    });
    expect(data.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(data._links).toEqual({ self: data.url, git: data.git_url, html: data.html_url });
  });

  it('when the ref is a tag, a commit or absent, then the file as of it (absent: the default branch); a binary file\'s bytes survive', async () => {
    const client = giteaClient(gh);
    const atTag = (await client.repos.repoGetContents('ann', 'demo', 'README.md', { ref: 'v1.0' })).data;
    expect(Buffer.from(atTag.content!, 'base64').toString()).toBe('# demo\n');
    expect((await client.repos.repoGetContents('ann', 'demo', 'README.md', { ref: first })).data.last_commit_sha).toBe(first);
    expect(Buffer.from((await client.repos.repoGetContents('ann', 'demo', 'README.md')).data.content!, 'base64').toString()).toBe('# demo, second\n');
    expect(Buffer.from((await client.repos.repoGetContents('ann', 'demo', 'logo.bin')).data.content!, 'base64')).toEqual(BINARY);
  });

  it('when a tool reads a directory or the root, then the listing of ContentsResponse without content', async () => {
    const { data } = await giteaClient(gh).repos.repoGetContentsList('ann', 'demo', { ref: 'main' });
    expect((data as Array<{ name: string; type: string; content: unknown }>).map((e) => [e.name, e.type, e.content])).toEqual([
      ['README.md', 'file', null],
      ['logo.bin', 'file', null],
      ['src', 'dir', null],
    ]);
    const src = (await giteaClient(gh).repos.repoGetContents('ann', 'demo', 'src')).data as unknown as Array<{ path: string; type: string }>;
    expect(src.map((e) => [e.path, e.type])).toEqual([
      ['src/app.ts', 'file'],
      ['src/lib', 'dir'],
    ]);
  });

  it('when the path or the ref does not exist, or the repository is private to the caller, then 404', async () => {
    expect((await giteaFailure(giteaClient(gh).repos.repoGetContents('ann', 'demo', 'nope.txt'))).status).toBe(404);
    expect((await giteaFailure(giteaClient(gh).repos.repoGetContents('ann', 'demo', 'README.md', { ref: 'no-such-branch' }))).status).toBe(404);
    expect((await giteaFailure(giteaClient(gh, cat.token).repos.repoGetContents('ann', 'secret', 'README.md'))).status).toBe(404);
    expect((await giteaClient(gh, ann.token).repos.repoGetContents('ann', 'secret', 'README.md')).data.type).toBe('file');
  });

  it('when a tool reads contents of a repository without commits, then Gitea\'s empty list at any path and ref; private to the caller stays 404', async () => {
    await createRepo(gh, ann.token, 'blank');
    await createRepo(gh, ann.token, 'blank-secret', { private: true });
    const client = giteaClient(gh);
    expect((await client.repos.repoGetContentsList('ann', 'blank')).data).toEqual([]);
    expect((await client.repos.repoGetContents('ann', 'blank', 'README.md')).data).toEqual([]);
    expect((await client.repos.repoGetContents('ann', 'blank', 'src/app.ts', { ref: 'no-such-branch' })).data).toEqual([]);
    expect((await giteaClient(gh, ann.token).repos.repoGetContents('ann', 'blank-secret', 'README.md')).data).toEqual([]);
    expect((await giteaFailure(giteaClient(gh, cat.token).repos.repoGetContents('ann', 'blank-secret', 'README.md'))).status).toBe(404);
    // The first push ends it: the empty list is kept by the refs, never past them.
    const wd = makeWorkdir();
    await commitFiles(wd, { 'README.md': '# blank no more\n' }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'blank'), 'main');
    const file = (await client.repos.repoGetContents('ann', 'blank', 'README.md')).data;
    expect([file.type, Buffer.from(file.content ?? '', 'base64').toString()]).toEqual(['file', '# blank no more\n']);
    expect((await giteaFailure(client.repos.repoGetContents('ann', 'blank', 'src/app.ts', { ref: 'no-such-branch' }))).status).toBe(404);
  });

  it('when a tool asks for the raw file, then its bytes', async () => {
    const res = await fetch(`${gh.url}/api/v1/repos/ann/demo/raw/src/app.ts?ref=main`);
    expect([res.status, await res.text()]).toEqual([200, 'export const x = 1;\n']);
    const bin = await fetch(`${gh.url}/api/v1/repos/ann/demo/raw/logo.bin`);
    expect(Buffer.from(await bin.arrayBuffer())).toEqual(BINARY);
    expect((await fetch(`${gh.url}/api/v1/repos/ann/secret/raw/README.md?token=${cat.token}`)).status).toBe(404);
  });
});

describe('Gitea API: trees and commits', () => {
  it('when a tool lists a tree recursively, then every entry by its path from the root, blobs with sizes', async () => {
    const { data } = await giteaClient(gh).repos.getTree('ann', 'demo', first, { recursive: true });
    expect(data.tree?.map((e) => [e.path, e.type])).toEqual([
      ['README.md', 'blob'],
      ['logo.bin', 'blob'],
      ['src', 'tree'],
      ['src/app.ts', 'blob'],
      ['src/lib', 'tree'],
      ['src/lib/util.ts', 'blob'],
    ]);
    expect([data.truncated, data.page, data.total_count, data.sha]).toEqual([false, 1, 6, expect.stringMatching(/^[0-9a-f]{40}$/)]);
    expect(data.tree?.find((e) => e.path === 'logo.bin')?.size).toBe(BINARY.length);
    const flat = await giteaClient(gh).repos.getTree('ann', 'demo', 'main');
    expect(flat.data.tree?.map((e) => e.path)).toEqual(['README.md', 'logo.bin', 'src']);
  });

  it('when a tool asks for one commit, then Gitea\'s Commit with its parents and tree', async () => {
    const { data } = await giteaClient(gh).repos.repoGetSingleCommit('ann', 'demo', second);
    expect(data).toMatchObject({
      sha: second,
      html_url: `http://localhost:${gh.port}/ann/demo/-/commit/${second}`,
      url: `http://localhost:${gh.port}/api/v1/repos/ann/demo/git/commits/${second}`,
      commit: { message: 'second\n', author: { name: expect.any(String), email: expect.any(String) }, tree: { sha: expect.stringMatching(/^[0-9a-f]{40}$/) } },
      parents: [{ sha: first }],
    });
  });

  it('when a tool lists commits, then newest first, paged with X-Total-Count; a branch by sha=', async () => {
    const all = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo');
    expect([all.data.map((c) => c.sha), all.headers.get('x-total-count')]).toEqual([[second, first], '2']);
    const page2 = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { limit: 1, page: 2 });
    expect(page2.data.map((c) => c.sha)).toEqual([first]);
    expect(page2.headers.get('link')).toContain('rel="prev"');
    const branch = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { sha: 'feature/x', limit: 1 });
    expect(branch.data.map((c) => c.sha)).toEqual([feature]);
  });

  it('when a tool lists the commits of a path, then only those touching that file or directory, as Gitea does; a path outside the repository is refused', async () => {
    const of = async (query: { sha?: string; path: string; limit?: number; page?: number }) => (await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', query)).data.map((c) => c.sha);
    expect(await of({ path: 'README.md' })).toEqual([second, first]);
    expect(await of({ path: 'src' })).toEqual([first]);
    expect(await of({ path: 'src/lib/util.ts' })).toEqual([first]);
    expect(await of({ path: 'README.md', limit: 1, page: 2 })).toEqual([first]);
    expect(await of({ sha: 'feature/x', path: 'feature.txt' })).toEqual([feature]);
    const counted = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { path: 'README.md', limit: 1 });
    expect([counted.headers.get('x-total-count'), counted.headers.get('x-hasmore'), counted.headers.get('x-pagecount')]).toEqual(['2', 'true', '2']);
    // Gitea answers a path no commit touches with a 404 (routers/api/v1/repo/commits.go).
    expect((await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { path: 'no/such/file' }))).status).toBe(404);
    expect((await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { path: '../etc/passwd' }))).status).toBe(400);
  });

  it('when a tool lists commits with not, then without the history of that branch, tag or commit, counted so, by path too; an unknown not is 404', async () => {
    const list = (query: { sha?: string; path?: string; not?: string }) => giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', query);
    const shasAndCount = async (query: { sha?: string; path?: string; not?: string }) => {
      const res = await list(query);
      return [res.data.map((c) => c.sha), res.headers.get('x-total-count'), res.headers.get('x-pagecount')];
    };
    expect(await shasAndCount({ sha: 'feature/x', not: 'v1.0' })).toEqual([[feature, second], '2', '1']);
    expect(await shasAndCount({ sha: 'feature/x', not: 'main' })).toEqual([[feature], '1', '1']);
    expect(await shasAndCount({ sha: 'feature/x', not: first })).toEqual([[feature, second], '2', '1']);
    // Everything left out: Gitea's empty list with a count of 0 (its 404 is only for a path).
    expect(await shasAndCount({ not: 'feature/x' })).toEqual([[], '0', '0']);
    expect(await shasAndCount({ path: 'README.md', not: 'v1.0' })).toEqual([[second], '1', '1']);
    expect((await giteaFailure(list({ path: 'src', not: 'v1.0' }))).status).toBe(404);
    for (const not of ['no-such-branch', 'f'.repeat(40), '--all']) expect([not, (await giteaFailure(list({ not }))).status]).toEqual([not, 404]);
    // Given twice, the first counts, as Gitea's FormString reads it.
    const twice = await fetch(`http://localhost:${gh.port}/api/v1/repos/ann/demo/commits?sha=feature/x&not=v1.0&not=main`);
    expect([twice.status, ((await twice.json()) as Array<{ sha: string }>).map((c) => c.sha), twice.headers.get('x-total-count')]).toEqual([200, [feature, second], '2']);
  });

  it('when a tool lists commits, then each with Gitea\'s stats and files (binary files count no lines); stat=false, files=false and verification=false each give null', async () => {
    const { data } = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo');
    expect(data.map((c) => [c.sha, c.stats, c.files])).toEqual([
      [second, { total: 2, additions: 1, deletions: 1 }, [{ filename: 'README.md', status: 'modified' }]],
      [
        first,
        { total: 3, additions: 3, deletions: 0 },
        [
          { filename: 'README.md', status: 'added' },
          { filename: 'logo.bin', status: 'added' },
          { filename: 'src/app.ts', status: 'added' },
          { filename: 'src/lib/util.ts', status: 'added' },
        ],
      ],
    ]);
    expect(data[0]?.commit?.verification).toMatchObject({ verified: false, reason: 'gpg.error.not_signed_commit' });
    const off = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { stat: false, files: false, verification: false });
    expect(off.data.map((c) => [c.sha, c.stats, c.files, c.commit?.verification])).toEqual([
      [second, null, null, null],
      [first, null, null, null],
    ]);
    const statsOnly = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { files: false, limit: 1 });
    expect(statsOnly.data.map((c) => [c.stats, c.files])).toEqual([[{ total: 2, additions: 1, deletions: 1 }, null]]);
    const one = await giteaClient(gh).repos.repoGetSingleCommit('ann', 'demo', second);
    expect([one.data.stats, one.data.files]).toEqual([{ total: 2, additions: 1, deletions: 1 }, [{ filename: 'README.md', status: 'modified' }]]);
    const oneOff = await giteaClient(gh).repos.repoGetSingleCommit('ann', 'demo', second, { stat: false, files: false });
    expect([oneOff.data.stats, oneOff.data.files]).toEqual([null, null]);
  });

  it('when a tool lists a history with a rename and merges, then renames are a removal and an addition, and a merge shows its first-parent lines and only the files differing from every parent, as Gitea does', async () => {
    await createRepo(gh, ann.token, 'merges');
    const wd = makeWorkdir();
    const root = await commitFiles(wd, { 'a.txt': 'one\ntwo\n', 'keep.txt': 'k\n' }, 'root');
    await git(wd, 'mv', 'a.txt', 'b.txt');
    await git(wd, 'commit', '-q', '-m', 'rename');
    const renamed = (await git(wd, 'rev-parse', 'HEAD')).trim();
    await git(wd, 'checkout', '-q', '-b', 'side', root);
    const side = await commitFiles(wd, { 'side.txt': 's1\ns2\n' }, 'side');
    await git(wd, 'checkout', '-q', 'main');
    await git(wd, 'merge', '-q', '--no-ff', '-m', 'clean merge', 'side');
    const clean = (await git(wd, 'rev-parse', 'HEAD')).trim();
    await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'merges'), 'main');
    const { data } = await giteaClient(gh).repos.repoGetAllCommits('ann', 'merges');
    const by = Object.fromEntries(data.map((c) => [c.sha, [c.stats, c.files]]));
    expect(by[renamed]).toEqual([{ total: 0, additions: 0, deletions: 0 }, [{ filename: 'b.txt', status: 'added' }, { filename: 'a.txt', status: 'removed' }]]);
    expect(by[side]).toEqual([{ total: 2, additions: 2, deletions: 0 }, [{ filename: 'side.txt', status: 'added' }]]);
    expect(by[clean]).toEqual([{ total: 2, additions: 2, deletions: 0 }, []]);
  });

  it('when a tool names commits by revision expressions in sha and not, then git\'s meaning; a search or reflog form is refused with a 4xx, never a 5xx', async () => {
    const shas = async (query: { sha?: string; not?: string }) => {
      const res = await giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', query);
      return [res.data.map((c) => c.sha), res.headers.get('x-total-count')];
    };
    expect(await shas({ sha: 'main~1' })).toEqual([[first], '1']);
    expect(await shas({ sha: 'feature/x^' })).toEqual([[second, first], '2']);
    expect(await shas({ sha: 'v1.0^{}' })).toEqual([[first], '1']);
    expect(await shas({ sha: 'HEAD' })).toEqual([[second, first], '2']);
    expect(await shas({ sha: second.slice(0, 7) })).toEqual([[second, first], '2']);
    expect(await shas({ sha: `${feature.slice(0, 8)}~1` })).toEqual([[second, first], '2']);
    expect(await shas({ sha: 'feature/x', not: 'feature/x~2' })).toEqual([[feature, second], '2']);
    expect(await shas({ sha: 'feature/x', not: 'HEAD^' })).toEqual([[feature, second], '2']);
    expect((await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { sha: 'main~5' }))).status).toBe(404);
    for (const sha of ['main@{1}', '@{-1}', ':/initial', 'main^{/initial}', 'main:README.md', 'main..feature/x', 'main~1234567']) {
      const status = (await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { sha }))).status;
      expect([sha, status >= 400 && status < 500]).toEqual([sha, true]);
    }
    // The same expression follows its branch: after a push, main~1 is the old tip.
    await createRepo(gh, ann.token, 'moving');
    const wd = makeWorkdir();
    const remote = pushUrl(gh, 'ann', ann.token, 'ann', 'moving');
    const one = await commitFiles(wd, { 'a.txt': '1\n' }, 'one');
    const two = await commitFiles(wd, { 'a.txt': '2\n' }, 'two');
    await git(wd, 'push', '-q', remote, 'main');
    const moving = async (sha: string) => (await giteaClient(gh).repos.repoGetAllCommits('ann', 'moving', { sha })).data.map((c) => c.sha);
    expect(await moving('main~1')).toEqual([one]);
    await commitFiles(wd, { 'a.txt': '3\n' }, 'three');
    await git(wd, 'push', '-q', remote, 'main');
    expect(await moving('main~1')).toEqual([two, one]);
  });

  it('when a tool lists the commits of a repository without any, then Gitea\'s 409 "Git Repository is empty."; a branch that does not exist elsewhere stays 404', async () => {
    await createRepo(gh, ann.token, 'nothing');
    for (const query of [{}, { sha: 'main' }, { path: 'README.md' }]) {
      expect(await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'nothing', query))).toEqual({ status: 409, body: { message: 'Git Repository is empty.', url: `http://localhost:${gh.port}/api/swagger` } });
    }
    expect((await giteaFailure(giteaClient(gh).repos.repoGetAllCommits('ann', 'demo', { sha: 'no-such-branch' }))).status).toBe(404);
  });

  it('when a tool pages through a history longer than githost\'s 100-commit log, then every commit once, newest first, and Gitea\'s paging headers with the exact count on every page', async () => {
    await createRepo(gh, ann.token, 'long');
    const wd = makeWorkdir();
    await commitFiles(wd, { 'README.md': '# long\n' }, 'commit 0');
    for (let i = 1; i < 120; i++) await git(wd, 'commit', '-q', '--allow-empty', '-m', `commit ${i}`);
    await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'long'), 'main');
    const expected = (await git(wd, 'log', '--format=%H', 'main')).split('\n').filter(Boolean);
    const seen: string[] = [];
    const headers: Array<Record<string, string | null>> = [];
    const named = ['x-total-count', 'link', 'x-hasmore', 'x-page', 'x-perpage', 'x-total', 'x-pagecount'];
    for (let page = 1; page <= 3; page++) {
      const res = await giteaClient(gh).repos.repoGetAllCommits('ann', 'long', { limit: 50, page });
      seen.push(...res.data.map((c) => c.sha as string));
      headers.push(Object.fromEntries(named.map((n) => [n, res.headers.get(n)])));
    }
    expect([seen, expected.length]).toEqual([expected, 120]);
    const at = (page: number) => `<http://localhost:${gh.port}/api/v1/repos/ann/long/commits?limit=50&page=${page}>`;
    const fixed = { 'x-total-count': '120', 'x-perpage': '50', 'x-total': '120', 'x-pagecount': '3' };
    expect(headers).toEqual([
      { ...fixed, link: `${at(2)}; rel="next",${at(3)}; rel="last"`, 'x-hasmore': 'true', 'x-page': '1' },
      { ...fixed, link: `${at(3)}; rel="next",${at(3)}; rel="last",${at(1)}; rel="first",${at(1)}; rel="prev"`, 'x-hasmore': 'true', 'x-page': '2' },
      { ...fixed, link: `${at(1)}; rel="first",${at(2)}; rel="prev"`, 'x-hasmore': 'false', 'x-page': '3' },
    ]);
    const past = await giteaClient(gh).repos.repoGetAllCommits('ann', 'long', { limit: 50, page: 4 });
    expect([past.data, past.headers.get('x-total-count'), past.headers.get('x-hasmore')]).toEqual([[], '120', 'false']);
    // not: the history below the 70 newest commits left out; two pages, every Link keeping not.
    const not = expected[70] as string;
    const without: string[] = [];
    const linked: Array<Array<string | null>> = [];
    for (let page = 1; page <= 2; page++) {
      const res = await giteaClient(gh).repos.repoGetAllCommits('ann', 'long', { limit: 50, page, not });
      without.push(...res.data.map((c) => c.sha as string));
      const links = (res.headers.get('link') ?? '').split(',').map((l) => {
        const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(l) ?? [];
        const q = new URL(url ?? 'http://x/').searchParams;
        return `${rel} ${q.get('page')} ${q.get('not') === not}`;
      });
      linked.push([res.headers.get('x-total-count'), res.headers.get('x-pagecount'), ...links]);
    }
    expect(without).toEqual(expected.slice(0, 70));
    expect(linked).toEqual([
      ['70', '2', 'next 2 true', 'last 2 true'],
      ['70', '2', 'first 1 true', 'prev 1 true'],
    ]);
  }, 120_000);
});

describe('Gitea API: branches, tags, compare', () => {
  it('when a tool lists branches, then Gitea\'s Branch with its tip commit, the default branch protected (githost keeps it from force pushes); one by a name with a slash', async () => {
    const { data, headers } = await giteaClient(gh, ann.token).repos.repoListBranches('ann', 'demo');
    expect(data.map((b) => [b.name, b.commit?.id, b.protected, b.user_can_push])).toEqual([
      ['feature/x', feature, false, true],
      ['main', second, true, true],
    ]);
    expect(headers.get('x-total-count')).toBe('2');
    const one = await giteaClient(gh).repos.repoGetBranch('ann', 'demo', 'feature/x');
    expect([one.data.name, one.data.commit?.message, one.data.user_can_push]).toEqual(['feature/x', 'feature work\n', false]);
    expect((await giteaFailure(giteaClient(gh).repos.repoGetBranch('ann', 'demo', 'nope'))).status).toBe(404);
  });

  it('when a tool lists tags, then Gitea\'s Tag with the commit and archive links', async () => {
    const { data } = await giteaClient(gh).repos.repoListTags('ann', 'demo');
    expect(data).toEqual([
      expect.objectContaining({
        name: 'v1.0',
        commit: expect.objectContaining({ sha: first }),
        tarball_url: `http://localhost:${gh.port}/api/repos/ann/demo/archive/v1.0.tar.gz`,
        zipball_url: `http://localhost:${gh.port}/api/repos/ann/demo/archive/v1.0.zip`,
      }),
    ]);
  });

  it('when a tool compares two refs, then the commits of head not in base, each with its stats and files as Gitea shows them; files=false and verification=false give null', async () => {
    const { data } = await giteaClient(gh).repos.repoCompareDiff('ann', 'demo', 'main...feature/x');
    expect([data.total_commits, data.commits?.map((c) => c.sha)]).toEqual([1, [feature]]);
    expect(data.commits?.map((c) => [c.stats, c.files, c.commit?.verification?.reason])).toEqual([
      [{ total: 1, additions: 1, deletions: 0 }, [{ filename: 'feature.txt', status: 'added' }], 'gpg.error.not_signed_commit'],
    ]);
    // Gitea's compare reads `files` and `verification` (not in its swagger, so not in gitea-js); stats always.
    const off = (await (await fetch(`${gh.url}/api/v1/repos/ann/demo/compare/main...feature/x?files=false&verification=false`)).json()) as { commits: Array<Record<string, unknown> & { commit: Record<string, unknown> }> };
    expect(off.commits.map((c) => [c.sha, c.stats, c.files, c.commit.verification])).toEqual([[feature, { total: 1, additions: 1, deletions: 0 }, null, null]]);
    expect((await giteaFailure(giteaClient(gh).repos.repoCompareDiff('ann', 'demo', 'main...nope'))).status).toBe(404);
  });
});
