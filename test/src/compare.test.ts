import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { addCollaborator, api, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/** Compare through the gateway, every answer checked against git itself (docs/decisions/compare.md). */
let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let work: string;

const BASE = '/api/repos/alice/cmp';

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  bob = await createUser(gh, 'bob');
  await createRepo(gh, alice.token, 'cmp');
  await createRepo(gh, alice.token, 'hidden', { private: true });
  await createUser(gh, 'carol');
  await addCollaborator(gh, alice.token, 'alice', 'hidden', 'carol', 'read');
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# cmp\n', 'src/a.ts': 'one\ntwo\nthree\n', 'old.txt': 'to be removed\n', 'logo.bin': Buffer.from([0, 1, 2, 3]) }, 'base');
  await git(work, 'tag', 'v1');
  await git(work, 'checkout', '-q', '-b', 'feature/deep/x');
  await commitFiles(work, { 'src/a.ts': 'one\nTWO\nthree\nfour\n', 'src/new.ts': 'export {};\n' }, 'feature 1');
  rmSync(path.join(work, 'old.txt'));
  await git(work, 'add', '-A');
  await git(work, 'commit', '-q', '-m', 'feature 2: drop old.txt');
  await commitFiles(work, { 'logo.bin': Buffer.from([9, 0, 8]) }, 'feature 3: binary');
  await git(work, 'checkout', '-q', 'main');
  await commitFiles(work, { 'README.md': '# cmp\n\nmain moved on\n' }, 'main 1');
  await git(work, 'branch', 'behind', 'v1');
  await git(work, 'checkout', '-q', '--orphan', 'orphan');
  await git(work, 'rm', '-rqf', '.');
  await commitFiles(work, { 'other.txt': 'unrelated\n' }, 'orphan root');
  await git(work, 'checkout', '-q', 'main');
  for (const repo of ['cmp', 'hidden']) {
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  }
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

const counts = async (base: string, head: string) => {
  const [behind, ahead] = (await git(work, 'rev-list', '--left-right', '--count', `${base}...${head}`)).split(/\s+/).map(Number);
  return { ahead_by: ahead, behind_by: behind };
};

/** `git diff base...head` per file: additions/deletions from --numstat, hunks from the patch. */
async function gitThreeDot(base: string, head: string) {
  const numstat = (await git(work, 'diff', '--numstat', '-M', `${base}...${head}`)).split('\n').filter(Boolean);
  return Promise.all(
    numstat.map(async (line) => {
      const [add, del, file] = line.split('\t') as [string, string, string];
      const binary = add === '-';
      const patch = (await gitResult(work, 'diff', '--no-color', '-M', `${base}...${head}`, '--', file)).stdout;
      return { path: file, additions: binary ? 0 : Number(add), deletions: binary ? 0 : Number(del), binary, patch: binary ? null : patch.slice(patch.indexOf('@@')) };
    }),
  );
}

describe('GET /compare/{base}...{head}', () => {
  it('when head diverged from base, then counts, merge base, commits and diff agree with git rev-list and git diff base...head', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/main...feature/deep/x`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      base: 'main',
      head: 'feature/deep/x',
      base_sha: await git(work, 'rev-parse', 'main'),
      head_sha: await git(work, 'rev-parse', 'feature/deep/x'),
      merge_base: await git(work, 'merge-base', 'main', 'feature/deep/x'),
      status: 'diverged',
      ...(await counts('main', 'feature/deep/x')),
      diff_truncated: false,
    });
    expect([res.body.ahead_by, res.body.behind_by]).toEqual([3, 1]);
    expect(res.body.commits.map((c: { sha: string }) => c.sha)).toEqual((await git(work, 'rev-list', '--reverse', 'feature/deep/x', '^main')).split('\n'));
    expect(res.body.commits.map((c: { message: string }) => c.message)).toEqual(['feature 1\n', 'feature 2: drop old.txt\n', 'feature 3: binary\n']);
    const files = res.body.diff.map((d: Record<string, unknown>) => ({ path: d.path, additions: d.additions, deletions: d.deletions, binary: d.binary, patch: d.patch }));
    expect(files).toEqual(await gitThreeDot('main', 'feature/deep/x'));
    expect(res.body.diff.map((d: { path: string; status: string }) => [d.path, d.status])).toEqual([
      ['logo.bin', 'modified'],
      ['old.txt', 'deleted'],
      ['src/a.ts', 'modified'],
      ['src/new.ts', 'added'],
    ]);
  });

  it('when head is ahead (base is its ancestor), then status ahead and behind_by 0', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/v1...feature/deep/x`);
    expect(res.body).toMatchObject({ status: 'ahead', ahead_by: 3, behind_by: 0, merge_base: await git(work, 'rev-parse', 'v1^{commit}') });
    expect(res.body.diff.map((d: { path: string }) => d.path)).toEqual((await gitThreeDot('v1', 'feature/deep/x')).map((f) => f.path));
  });

  it('when head is behind, then status behind, no commits and no diff', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/main...behind`);
    expect(res.body).toMatchObject({ status: 'behind', ...(await counts('main', 'behind')), commits: [], diff: [] });
    expect(res.body.behind_by).toBe(1);
  });

  it('when both sides are the same commit (a tag and its sha), then identical', async () => {
    const sha = await git(work, 'rev-parse', 'v1^{commit}');
    const res = await api(gh, 'GET', `${BASE}/compare/v1...${sha}`);
    expect(res.body).toMatchObject({ base: 'v1', head: sha, status: 'identical', ahead_by: 0, behind_by: 0, commits: [], diff: [], merge_base: sha });
  });

  it('when the slashed name is percent-encoded, then it is decoded once and resolves the same', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/main...feature%2Fdeep%2Fx`);
    expect([res.status, res.body.head, res.body.ahead_by]).toEqual([200, 'feature/deep/x', 3]);
  });

  it('when the histories are unrelated, then 404 No common ancestor (as GitHub)', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/main...orphan`);
    expect([res.status, res.body]).toEqual([404, { error: 'No common ancestor between main and orphan' }]);
  });

  it('when a ref does not exist, then 404 Ref not found naming it', async () => {
    const res = await api(gh, 'GET', `${BASE}/compare/main...feature/nope`);
    expect([res.status, res.body]).toEqual([404, { error: 'Ref not found: feature/nope' }]);
    const sha = 'f'.repeat(40);
    expect((await api(gh, 'GET', `${BASE}/compare/${sha}...main`)).body).toEqual({ error: `Ref not found: ${sha}` });
  });

  it.each(['main', 'main..feature/deep/x', '...main', 'main...'])('when the spec is %p, then 400', async (spec) => {
    const res = await api(gh, 'GET', `${BASE}/compare/${spec}`);
    expect([res.status, res.body]).toEqual([400, { error: 'Compare must be written {base}...{head}' }]);
  });

  it('when asked again with its ETag, then 304', async () => {
    const first = await api(gh, 'GET', `${BASE}/compare/main...feature/deep/x`);
    const again = await fetch(`${gh.url}${BASE}/compare/main...feature/deep/x`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
    expect([first.headers.get('cache-control'), again.status]).toEqual(['no-cache', 304]);
  });

  it('when the repository is private, then a stranger and anonymous get 404 and a reader gets the compare', async () => {
    expect((await api(gh, 'GET', '/api/repos/alice/hidden/compare/main...feature/deep/x', { token: bob.token })).status).toBe(404);
    expect((await api(gh, 'GET', '/api/repos/alice/hidden/compare/main...feature/deep/x')).status).toBe(404);
    const reader = await api(gh, 'GET', '/api/repos/alice/hidden/compare/main...feature/deep/x', { token: alice.token });
    expect([reader.status, reader.body.status, reader.headers.get('cache-control')]).toEqual([200, 'diverged', 'private, no-cache']);
  });
});
