import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  addCollaborator, api, cloneUrl, commitFiles, createRepo, createUser, git, gitResult, gitResultWithEnv, gitWithInput, makeWorkdir, pushUrl, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/**
 * The README's walk-through, exactly as a new user does it, through the gateway with the real git
 * client: on the embedded defaults (PGlite, in-process bus) and on real Postgres + RabbitMQ.
 */
describe.each([['embedded' as const], ['real' as const]])('walk-through on the %s backend', (backend) => {
  let gh: TestGithost;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let firstSha: string;
  let aliceWork: string;

  beforeAll(async () => {
    gh = await startTestGithost({ backend });
  });
  afterAll(async () => {
    await gh?.stop();
  });

  it('when the admin creates a user with a token, then the token identifies that user', async () => {
    alice = await createUser(gh, 'alice');
    bob = await createUser(gh, 'bob');
    carol = await createUser(gh, 'carol');
    const me = await api(gh, 'GET', '/api/user', { token: alice.token });
    expect([me.status, me.body]).toEqual([200, { id: alice.id, username: 'alice', email: 'alice@example.com', is_admin: false }]);
  });

  it('when the user creates a repository, then 201 with its clone URL', async () => {
    const res = await api(gh, 'POST', '/api/repos', { token: alice.token, body: { name: 'demo' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ owner: 'alice', name: 'demo', full_name: 'alice/demo', private: false, default_branch: 'main' });
    expect(res.body.clone_url).toMatch(/\/alice\/demo\.git$/);
  });

  it('when the user pushes main over HTTP with the token, then the branch exists on the server', async () => {
    aliceWork = makeWorkdir();
    firstSha = await commitFiles(aliceWork, { 'README.md': '# demo\n', 'src/app.txt': 'hello\n' }, 'first commit');
    await git(aliceWork, 'remote', 'add', 'origin', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'));
    await git(aliceWork, 'push', '-q', 'origin', 'main');
    const remote = await git(aliceWork, 'ls-remote', cloneUrl(gh, 'alice', 'demo'));
    expect(remote).toBe(`${firstSha}\tHEAD\n${firstSha}\trefs/heads/main`);
  });

  it('when anyone clones the public repository anonymously, then they get the files', async () => {
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    expect(readFileSync(path.join(dir, 'demo', 'src', 'app.txt'), 'utf8')).toBe('hello\n');
    expect(await git(path.join(dir, 'demo'), 'rev-parse', 'HEAD')).toBe(firstSha);
  });

  it('when a second push lands, then a fetch in an existing clone gets it', async () => {
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    const second = await commitFiles(aliceWork, { 'src/app.txt': 'hello again\n' }, 'second commit');
    await git(aliceWork, 'push', '-q', 'origin', 'main');
    await git(path.join(dir, 'demo'), 'fetch', '-q', 'origin');
    expect(await git(path.join(dir, 'demo'), 'rev-parse', 'origin/main')).toBe(second);
    expect(await git(path.join(dir, 'demo'), 'log', '--format=%s', 'origin/main')).toBe('second commit\nfirst commit');
  });

  it('when a push is not a fast-forward, then git reports the rejection and the branch is unchanged', async () => {
    const before = await git(aliceWork, 'ls-remote', cloneUrl(gh, 'alice', 'demo'), 'refs/heads/main');
    const other = makeWorkdir();
    await git(other, 'clone', '-q', pushUrl(gh, 'bob', alice.token, 'alice', 'demo'), 'demo');
    const wd = path.join(other, 'demo');
    await git(wd, 'reset', '-q', '--hard', firstSha);
    await commitFiles(wd, { 'diverged.txt': 'x\n' }, 'diverged');
    const push = await gitResult(wd, 'push', 'origin', 'main');
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('! [rejected]');
    expect(push.stderr).toContain('main -> main (non-fast-forward)');
    expect(await git(aliceWork, 'ls-remote', cloneUrl(gh, 'alice', 'demo'), 'refs/heads/main')).toBe(before);
  });

  it('when git negotiates a fetch with a gzip-compressed request, then it passes the gateway untouched', async () => {
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    const wd = path.join(dir, 'demo');
    // Local commits the server lacks become "have" lines, sent 16, then 32 a round; past 1 KiB a
    // request is gzipped. 100 commits in one fast-import rather than 100 git processes.
    // Dated after everything on the server, so the have walk (newest first) meets them first.
    const base = await git(wd, 'rev-parse', 'HEAD');
    const start = Math.floor(Date.now() / 1000) + 3600;
    const stream = Array.from({ length: 100 }, (_, i) =>
      `commit refs/heads/local-work\ncommitter E2E <e2e@example.com> ${start + i} +0000\ndata <<EOM\nlocal ${i}\nEOM\n${i === 0 ? `from ${base}\n` : ''}\n`).join('');
    await gitWithInput(wd, stream, 'fast-import', '--quiet');
    const pushed = await commitFiles(aliceWork, { 'src/app.txt': 'third\n' }, 'third commit');
    await git(aliceWork, 'push', '-q', 'origin', 'main');
    const fetch = await gitResultWithEnv(wd, { GIT_TRACE_CURL: '1', GIT_TRACE_CURL_NO_DATA: '1' }, 'fetch', 'origin');
    expect(fetch.code).toBe(0);
    expect(fetch.stderr).toMatch(/Send header: Content-Encoding: gzip/i);
    expect(await git(wd, 'rev-parse', 'origin/main')).toBe(pushed);
  });

  it('when a push carries a pack over 1 MiB, then it streams through the gateway (no API body limit on git)', async () => {
    const big = randomBytes(3 * 1024 * 1024);
    const sha = await commitFiles(aliceWork, { 'assets/blob.bin': big }, 'large binary');
    await git(aliceWork, 'push', '-q', 'origin', 'main');
    const dir = makeWorkdir();
    await git(dir, 'clone', '-q', cloneUrl(gh, 'alice', 'demo'), 'demo');
    expect(await git(path.join(dir, 'demo'), 'rev-parse', 'HEAD')).toBe(sha);
    expect(readFileSync(path.join(dir, 'demo', 'assets', 'blob.bin')).equals(big)).toBe(true);
  });

  describe('a private repository', () => {
    let secretSha: string;

    beforeAll(async () => {
      await createRepo(gh, alice.token, 'secret', { private: true });
      const wd = makeWorkdir();
      secretSha = await commitFiles(wd, { 'plan.md': 'top secret\n' }, 'plans');
      await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'secret'), 'main');
    });

    it('when an anonymous client clones it, then git is asked for credentials (401) and gets nothing', async () => {
      const dir = makeWorkdir();
      const clone = await gitResult(dir, 'clone', cloneUrl(gh, 'alice', 'secret'), 'secret');
      expect(clone.code).toBe(128);
      expect(clone.stderr).toContain('terminal prompts disabled');
      const refs = await api(gh, 'GET', '/alice/secret.git/info/refs?service=git-upload-pack');
      expect([refs.status, refs.headers.get('www-authenticate'), refs.body]).toEqual([401, 'Basic realm="githost"', { error: 'Authentication required' }]);
    });

    it('when a user who is not a collaborator asks, then it does not exist for them', async () => {
      const dir = makeWorkdir();
      const clone = await gitResult(dir, 'clone', pushUrl(gh, 'bob', bob.token, 'alice', 'secret'), 'secret');
      expect(clone.code).toBe(128);
      expect(clone.stderr).toContain(`repository 'http://127.0.0.1:${gh.port}/alice/secret.git/' not found`);
      const res = await api(gh, 'GET', '/api/repos/alice/secret', { token: bob.token });
      expect([res.status, res.body]).toEqual([404, { error: 'Repository not found' }]);
    });

    it('when a reader collaborator clones, then it works; when the reader pushes, then 403 and nothing changes', async () => {
      await addCollaborator(gh, alice.token, 'alice', 'secret', 'bob', 'read');
      const dir = makeWorkdir();
      await git(dir, 'clone', '-q', pushUrl(gh, 'bob', bob.token, 'alice', 'secret'), 'secret');
      const wd = path.join(dir, 'secret');
      expect(readFileSync(path.join(wd, 'plan.md'), 'utf8')).toBe('top secret\n');
      await commitFiles(wd, { 'plan.md': 'leaked\n' }, 'reader edit');
      const push = await gitResult(wd, 'push', 'origin', 'main');
      expect(push.code).not.toBe(0);
      expect(push.stderr).toContain('403');
      expect(await git(wd, 'ls-remote', 'origin', 'refs/heads/main')).toBe(`${secretSha}\trefs/heads/main`);
    });

    it('when a writer collaborator pushes, then the branch moves', async () => {
      await addCollaborator(gh, alice.token, 'alice', 'secret', 'carol', 'write');
      const dir = makeWorkdir();
      await git(dir, 'clone', '-q', pushUrl(gh, 'carol', carol.token, 'alice', 'secret'), 'secret');
      const wd = path.join(dir, 'secret');
      const sha = await commitFiles(wd, { 'plan.md': 'revised\n' }, 'writer edit');
      await git(wd, 'push', '-q', 'origin', 'main');
      expect(await git(wd, 'ls-remote', pushUrl(gh, 'alice', alice.token, 'alice', 'secret'), 'refs/heads/main')).toBe(`${sha}\trefs/heads/main`);
    });
  });
});
