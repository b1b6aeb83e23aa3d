import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  addCollaborator, api, commitFiles, createRepo, createUser, git, makeWorkdir, pushUrl, rawGet, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/** Browsing (seed §5) through the gateway: repositories pushed with the real git client, answers compared with git. */
let gh: TestGithost;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let work: string;

const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a, 0xff]);

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  bob = await createUser(gh, 'bob');
  carol = await createUser(gh, 'carol');
  await createRepo(gh, alice.token, 'demo');
  await createRepo(gh, alice.token, 'secret', { private: true });
  await addCollaborator(gh, alice.token, 'alice', 'secret', 'carol', 'read');
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# demo\n', 'src/index.ts': 'export {};\n', 'logo.png': BINARY }, 'first');
  await commitFiles(work, { 'src/more.ts': 'export const x = 1;\n' }, 'second');
  await git(work, 'branch', 'feature/x');
  await git(work, 'tag', '-a', 'v1', '-m', 'v1');
  for (const repo of ['demo', 'secret']) {
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', repo), 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  }
  // Booting every service (PGlite included) takes seconds, more on a loaded machine.
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

const lsTree = async (rev: string) =>
  (await git(work, 'ls-tree', '--long', rev))
    .split('\n')
    .map((l) => {
      const [meta, name] = l.split('\t') as [string, string];
      const [mode, type, sha, size] = meta.trim().split(/ +/) as [string, string, string, string];
      return { name, path: name, type, mode, sha, size: size === '-' ? null : Number(size) };
    });

describe('browsing a public repository anonymously', () => {
  it('when listing the root, then the default branch is listed as git ls-tree lists it', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/tree/');
    expect([res.status, res.body]).toEqual([200, { ref: 'main', commit: await git(work, 'rev-parse', 'main'), path: '', entries: await lsTree('main') }]);
  });

  it('when reading a text blob, then the content and blob id are git’s', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/blob/main/README.md');
    expect(res.body).toEqual({ ref: 'main', commit: await git(work, 'rev-parse', 'main'), path: 'README.md', sha: await git(work, 'rev-parse', 'main:README.md'), size: 7, content: '# demo\n', encoding: 'utf-8' });
  });

  it('when reading a binary blob, then it is base64 of the exact bytes', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/blob/feature/x/logo.png');
    expect([res.body.ref, res.body.encoding, res.body.content]).toEqual(['feature/x', 'base64', BINARY.toString('base64')]);
  });

  it('when reading raw bytes, then they come with a content type and length', async () => {
    const res = await fetch(`${gh.url}/api/repos/alice/demo/raw/main/logo.png`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-length')]).toEqual([200, 'application/octet-stream', String(BINARY.length)]);
    expect(Buffer.from(await res.arrayBuffer()).equals(BINARY)).toBe(true);
  });

  it('when listing commits, then they are git log’s', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/commits/main?limit=5');
    expect([res.body.ref, res.body.commits.map((c: { sha: string }) => c.sha)]).toEqual(['main', (await git(work, 'log', '--format=%H', 'main')).split('\n')]);
  });

  it('when reading one commit, then tree, parents and message are git’s', async () => {
    const sha = await git(work, 'rev-parse', 'main');
    const res = await api(gh, 'GET', `/api/repos/alice/demo/commit/${sha}`);
    expect([res.body.sha, res.body.tree, res.body.parents, res.body.message]).toEqual([sha, await git(work, 'rev-parse', 'main^{tree}'), [await git(work, 'rev-parse', 'main~1')], 'second\n']);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('when listing branches and tags, then they match the pushed refs', async () => {
    const main = await git(work, 'rev-parse', 'main');
    const branches = await api(gh, 'GET', '/api/repos/alice/demo/branches');
    expect(branches.body).toEqual({ branches: [{ name: 'feature/x', sha: main, isDefault: false }, { name: 'main', sha: main, isDefault: true }], default_branch: 'main' });
    const tags = await api(gh, 'GET', '/api/repos/alice/demo/tags');
    expect(tags.body).toEqual({ tags: [{ name: 'v1', sha: main, tag_sha: await git(work, 'rev-parse', 'v1') }] });
  });

  it('when an unknown ref is asked, then 404 Ref not found', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/tree/nope');
    expect([res.status, res.body]).toEqual([404, { error: 'Ref not found: nope' }]);
  });

  it('when a blob is asked without a path, then 400 Path required', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/demo/blob/main');
    expect([res.status, res.body]).toEqual([400, { error: 'Path required' }]);
  });
});

describe('a private repository', () => {
  it.each(['tree/', 'blob/main/README.md', 'raw/main/README.md', 'commits/', 'branches', 'tags'])('when an anonymous caller asks %s, then 404 Not found', async (endpoint) => {
    const res = await api(gh, 'GET', `/api/repos/alice/secret/${endpoint}`);
    expect([res.status, res.body]).toEqual([404, { error: 'Not found' }]);
  });

  it.each(['tree/', 'commits/', 'branches'])('when a user who is not a collaborator asks %s, then 404 Not found', async (endpoint) => {
    const res = await api(gh, 'GET', `/api/repos/alice/secret/${endpoint}`, { token: bob.token });
    expect([res.status, res.body]).toEqual([404, { error: 'Not found' }]);
  });

  it('when a read collaborator asks, then the tree is listed', async () => {
    const res = await api(gh, 'GET', '/api/repos/alice/secret/tree/', { token: carol.token });
    expect([res.status, res.body.entries]).toEqual([200, await lsTree('main')]);
  });

  it('when the owner asks for an immutable answer, then it is kept out of shared caches', async () => {
    const sha = await git(work, 'rev-parse', 'main');
    const res = await api(gh, 'GET', `/api/repos/alice/secret/tree/${sha}`, { token: alice.token });
    expect([res.status, res.headers.get('cache-control')]).toEqual([200, 'private, max-age=31536000, immutable']);
  });
});

describe('conditional requests through the gateway', () => {
  it('when If-None-Match repeats the ETag, then 304; after a push moves the branch, then 200 with the new commit', async () => {
    const first = await api(gh, 'GET', '/api/repos/alice/demo/tree/main');
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await api(gh, 'GET', '/api/repos/alice/demo/tree/main', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const next = await commitFiles(work, { 'CHANGELOG.md': 'new\n' }, 'third');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main');
    const after = await api(gh, 'GET', '/api/repos/alice/demo/tree/main', { headers: { 'if-none-match': etag } });
    expect([after.status, after.body.commit]).toEqual([200, next]);
    expect(after.headers.get('etag')).not.toBe(etag);
  });
});

describe('bad input through the gateway', () => {
  it.each([
    ['blob/main/src/../../etc/passwd', 404, 'Path not found: src/../../etc/passwd'],
    ['blob/main/README.md%00', 400, 'Path parameter "ref_and_path" must not contain NUL characters'],
    ['tree/main~1', 404, 'Ref not found: main~1'],
    ['commits/--output=%2Ftmp%2Fx', 404, 'Ref not found: --output=/tmp/x'],
    ['commit/not-hex', 404, 'Commit not found: not-hex'],
  ])('when asking %s, then %i %s', async (endpoint, status, message) => {
    const res = await rawGet(gh, `/api/repos/alice/demo/${endpoint}`);
    expect([res.status, res.body]).toEqual([status, { error: message }]);
  });

  it.each(['blob/main/%2e%2e/%2e%2e/etc/passwd', 'blob/main/../../../../etc/passwd'])('when a path climbs out (%s), then a 404 JSON answer and nothing outside the repository', async (endpoint) => {
    const res = await rawGet(gh, `/api/repos/alice/demo/${endpoint}`);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('root:');
  });

  it.each(['-5', '1e9', 'abc'])('when limit is %s, then the default applies and every commit up to 20 comes back', async (limit) => {
    const res = await api(gh, 'GET', `/api/repos/alice/demo/commits/main?limit=${limit}`);
    expect([res.status, res.body.commits.map((c: { sha: string }) => c.sha)]).toEqual([200, (await git(work, 'log', '--format=%H', '-n20', 'main')).split('\n')]);
  });
});
