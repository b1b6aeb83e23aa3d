import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import path from 'node:path';
import {
  addCollaborator, api, cloneUrl, commitFiles, createRepo, createUser, git, gitResult, makeWorkdir, pushUrl, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/**
 * docs/decisions/repositories.md and docs/decisions/branch-protection.md: managing repositories and their rules
 * through the gateway, with the real git client where HEAD and deletion show.
 */
describe('repositories managed through the gateway', () => {
  let gh: TestGithost;
  let owner: TestUser;
  let writer: TestUser;
  let reader: TestUser;
  let stranger: TestUser;
  /** PUBLIC_URL as the service sees it (the clone URL's base). */
  let publicUrl: string;

  beforeAll(async () => {
    gh = await startTestGithost();
    owner = await createUser(gh, 'ollie');
    writer = await createUser(gh, 'willa');
    reader = await createUser(gh, 'reed');
    stranger = await createUser(gh, 'sid');
    const repo = await createRepo(gh, owner.token, 'project');
    publicUrl = repo.clone_url.replace(/\/ollie\/project\.git$/, '');
    await addCollaborator(gh, owner.token, 'ollie', 'project', 'willa', 'write');
    await addCollaborator(gh, owner.token, 'ollie', 'project', 'reed', 'read');
    await createRepo(gh, owner.token, 'vault', { private: true });
    await addCollaborator(gh, owner.token, 'ollie', 'vault', 'reed', 'read');
  });

  afterAll(async () => {
    await gh?.stop();
  });

  describe('branch protections', () => {
    const base = '/api/repos/ollie/project/branch-protections';

    it('when the owner puts, reads, lists and deletes rules, then each answers as documented', async () => {
      const created = await api(gh, 'PUT', `${base}/release/*`, { token: owner.token, body: { required_approvals: 2, required_status_checks: ['ci/build', 'ci/build'], push: 'admin' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ pattern: 'release/*', allow_force_pushes: false, allow_deletions: false, required_approvals: 2, required_status_checks: ['ci/build'], dismiss_stale_approvals: true, push: 'admin' });
      const replaced = await api(gh, 'PUT', `${base}/release%2F*`, { token: owner.token, body: { allow_deletions: true } });
      expect([replaced.status, replaced.body.allow_deletions, replaced.body.required_approvals, replaced.body.push]).toEqual([200, true, 0, 'write']);
      expect((await api(gh, 'PUT', `${base}/main`, { token: owner.token, body: {} })).status).toBe(201);

      const listed = await api(gh, 'GET', base, { token: reader.token });
      expect([listed.status, listed.body.map((r: { pattern: string }) => r.pattern)]).toEqual([200, ['main', 'release/*']]);
      expect((await api(gh, 'GET', `${base}/release/*`, { token: writer.token })).body.allow_deletions).toBe(true);

      expect((await api(gh, 'DELETE', `${base}/release/*`, { token: owner.token })).status).toBe(204);
      const gone = await api(gh, 'GET', `${base}/release%2F*`, { token: owner.token });
      expect([gone.status, gone.body]).toEqual([404, { error: 'Branch protection not found: release/*' }]);
      const again = await api(gh, 'DELETE', `${base}/release/*`, { token: owner.token });
      expect([again.status, again.body]).toEqual([404, { error: 'Branch protection not found: release/*' }]);
    });

    it('when the pattern or a field is invalid, then 400 names what is wrong and nothing is stored', async () => {
      const badPattern = await api(gh, 'PUT', `${base}/feature..x`, { token: owner.token, body: {} });
      expect([badPattern.status, badPattern.body]).toEqual([400, { error: 'Invalid branch pattern: "feature..x" (a branch name, * and ** allowed)' }]);
      const badPush = await api(gh, 'PUT', `${base}/dev`, { token: owner.token, body: { push: 'everyone' } });
      expect([badPush.status, badPush.body]).toEqual([400, { error: 'push must be "write", "admin" or "nobody"' }]);
      const badApprovals = await api(gh, 'PUT', `${base}/dev`, { token: owner.token, body: { required_approvals: '2' } });
      expect([badApprovals.status, badApprovals.body]).toEqual([400, { error: 'required_approvals must be an integer from 0 to 10' }]);
      expect((await api(gh, 'GET', base, { token: owner.token })).body.map((r: { pattern: string }) => r.pattern)).toEqual(['main']);
    });

    it('when a writer manages rules, then 403; a stranger on a private repository gets 404; anonymous 401', async () => {
      const byWriter = await api(gh, 'PUT', `${base}/dev`, { token: writer.token, body: {} });
      expect([byWriter.status, byWriter.body]).toEqual([403, { error: 'Forbidden' }]);
      const byReader = await api(gh, 'DELETE', `${base}/main`, { token: reader.token });
      expect([byReader.status, byReader.body]).toEqual([403, { error: 'Forbidden' }]);
      for (const method of ['GET', 'PUT'] as const) {
        const res = await api(gh, method, '/api/repos/ollie/vault/branch-protections/main', { token: stranger.token, body: method === 'PUT' ? {} : undefined });
        expect([res.status, res.body]).toEqual([404, { error: 'Repository not found' }]);
      }
      expect((await api(gh, 'GET', base)).status).toBe(401);
    });
  });

  describe('PATCH', () => {
    it('when each field is changed, then the answer and the next GET show it', async () => {
      const res = await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body: { description: 'the project' } });
      expect([res.status, res.body.description]).toEqual([200, 'the project']);
      expect((await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body: { allow_tag_changes: true } })).body.allow_tag_changes).toBe(true);
      expect((await api(gh, 'GET', '/api/repos/ollie/project')).body).toMatchObject({ description: 'the project', allow_tag_changes: true, private: false });
    });

    it('when nothing is given to change, a type is wrong or the default branch does not exist, then 400 and nothing changes', async () => {
      const work = makeWorkdir();
      await commitFiles(work, { 'README.md': 'main\n' }, 'on main');
      await git(work, 'push', '-q', pushUrl(gh, 'ollie', owner.token, 'ollie', 'project'), 'main');
      const cases: [unknown, string][] = [
        [{}, 'Nothing to change: give at least one of description, private, default_branch, allow_tag_changes'],
        [{ private: 1 }, 'private must be true or false'],
        [{ default_branch: 'missing' }, 'default_branch must name an existing branch: missing'],
      ];
      for (const [body, error] of cases) {
        const res = await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body });
        expect([res.status, res.body]).toEqual([400, { error }]);
      }
      expect((await api(gh, 'GET', '/api/repos/ollie/project')).body.default_branch).toBe('main');
      const byWriter = await api(gh, 'PATCH', '/api/repos/ollie/project', { token: writer.token, body: { private: true } });
      expect([byWriter.status, byWriter.body]).toEqual([403, { error: 'Forbidden' }]);
    });

    it('when the default branch moves, then the very next request sees it and a fresh clone checks it out', async () => {
      const work = makeWorkdir();
      await git(work, 'clone', '-q', pushUrl(gh, 'ollie', owner.token, 'ollie', 'project'), 'p');
      const dir = path.join(work, 'p');
      await git(dir, 'checkout', '-q', '-b', 'develop');
      await commitFiles(dir, { 'dev.txt': 'dev\n' }, 'on develop');
      await git(dir, 'push', '-q', 'origin', 'develop');
      // Warm the gateway's cache with the old answer first.
      expect((await api(gh, 'GET', '/api/repos/ollie/project/branches')).body.default_branch).toBe('main');

      const res = await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body: { default_branch: 'develop' } });
      expect([res.status, res.body.default_branch]).toEqual([200, 'develop']);
      expect((await api(gh, 'GET', '/api/repos/ollie/project/branches')).body.default_branch).toBe('develop');
      const fresh = makeWorkdir();
      await git(fresh, 'clone', '-q', cloneUrl(gh, 'ollie', 'project'), 'c');
      expect(await git(path.join(fresh, 'c'), 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('develop');
    });

    it('when a public repository becomes private, then the very next anonymous or stranger request gets 404', async () => {
      expect((await api(gh, 'GET', '/api/repos/ollie/project', { token: stranger.token })).status).toBe(200);
      expect((await api(gh, 'GET', '/api/repos/ollie/project')).status).toBe(200);
      expect((await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body: { private: true } })).status).toBe(200);
      expect((await api(gh, 'GET', '/api/repos/ollie/project', { token: stranger.token })).status).toBe(404);
      expect((await api(gh, 'GET', '/api/repos/ollie/project')).status).toBe(404);
      expect((await gitResult(makeWorkdir(), 'ls-remote', cloneUrl(gh, 'ollie', 'project'))).code).not.toBe(0);
      expect((await api(gh, 'GET', '/api/repos/ollie/project', { token: reader.token })).status).toBe(200);
      expect((await api(gh, 'PATCH', '/api/repos/ollie/project', { token: owner.token, body: { private: false } })).body.private).toBe(false);
      expect((await api(gh, 'GET', '/api/repos/ollie/project')).status).toBe(200);
    });
  });

  describe('collaborators and lists', () => {
    it('when a writer lists collaborators, then usernames and permissions come back; a reader gets 403', async () => {
      const res = await api(gh, 'GET', '/api/repos/ollie/project/collaborators', { token: writer.token });
      expect([res.status, res.body]).toEqual([200, [{ username: 'reed', permission: 'read' }, { username: 'willa', permission: 'write' }]]);
      expect((await api(gh, 'GET', '/api/repos/ollie/project/collaborators', { token: reader.token })).status).toBe(403);
    });

    it('when a user lists their repositories, then owned and collaborating ones come by full name', async () => {
      const res = await api(gh, 'GET', '/api/user/repos', { token: reader.token });
      expect(res.body.map((r: { full_name: string }) => r.full_name)).toEqual(['ollie/project', 'ollie/vault']);
      expect((await api(gh, 'GET', '/api/user/repos', { token: stranger.token })).body).toEqual([]);
    });

    it("when another user's repositories are listed page by page, then private ones show only to those who may read them, with Link headers", async () => {
      for (const name of ['r1', 'r2', 'r3']) await createRepo(gh, stranger.token, name);
      const first = await api(gh, 'GET', '/api/users/sid/repos?per_page=2');
      expect(first.body.map((r: { name: string }) => r.name)).toEqual(['r1', 'r2']);
      const url = (page: number) => `<${publicUrl}/api/users/sid/repos?per_page=2&page=${page}>`;
      expect(first.headers.get('link')).toBe(`${url(2)}; rel="next", ${url(2)}; rel="last"`);
      const second = await api(gh, 'GET', '/api/users/sid/repos?per_page=2&page=2');
      expect(second.body.map((r: { name: string }) => r.name)).toEqual(['r3']);
      expect(second.headers.get('link')).toBe(`${url(1)}; rel="prev", ${url(1)}; rel="first"`);

      expect((await api(gh, 'GET', '/api/users/ollie/repos')).body.map((r: { name: string }) => r.name)).toEqual(['project']);
      expect((await api(gh, 'GET', '/api/users/ollie/repos', { token: reader.token })).body.map((r: { name: string }) => r.name)).toEqual(['project', 'vault']);
      const missing = await api(gh, 'GET', '/api/users/nobody-here/repos');
      expect([missing.status, missing.body]).toEqual([404, { error: 'User not found' }]);
    });
  });

  describe('DELETE', () => {
    it('when a writer deletes, then 403; a stranger on a private repository, 404', async () => {
      const byWriter = await api(gh, 'DELETE', '/api/repos/ollie/project', { token: writer.token });
      expect([byWriter.status, byWriter.body]).toEqual([403, { error: 'Forbidden' }]);
      const byStranger = await api(gh, 'DELETE', '/api/repos/ollie/vault', { token: stranger.token });
      expect([byStranger.status, byStranger.body]).toEqual([404, { error: 'Repository not found' }]);
    });

    it('when the owner deletes a repository, then it is gone at once and the name gives a fresh empty repository', async () => {
      expect((await api(gh, 'GET', '/api/repos/ollie/project', { token: writer.token })).status).toBe(200);
      expect((await api(gh, 'DELETE', '/api/repos/ollie/project', { token: owner.token })).status).toBe(204);
      for (const token of [owner.token, writer.token, undefined]) {
        const res = await api(gh, 'GET', '/api/repos/ollie/project', { token });
        expect([res.status, res.body]).toEqual([404, { error: 'Repository not found' }]);
      }

      const reborn = await createRepo(gh, owner.token, 'project');
      expect(reborn.default_branch).toBe('main');
      expect((await api(gh, 'GET', '/api/repos/ollie/project/branch-protections', { token: owner.token })).body).toEqual([]);
      expect((await api(gh, 'GET', '/api/repos/ollie/project/collaborators', { token: owner.token })).body).toEqual([]);
      const branches = await api(gh, 'GET', '/api/repos/ollie/project/branches');
      expect(branches.body).toEqual({ branches: [], default_branch: 'main' });
      const work = makeWorkdir();
      const clone = await gitResult(work, 'clone', cloneUrl(gh, 'ollie', 'project'), 'again');
      expect([clone.code, clone.stderr]).toEqual([0, expect.stringContaining('empty repository')]);
      expect(await git(path.join(work, 'again'), 'for-each-ref')).toBe('');
    });
  });
});
