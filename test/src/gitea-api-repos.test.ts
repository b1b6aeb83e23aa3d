import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { giteaIdOf } from '@githost/gitea-ids';
import { addCollaborator, api, commitFiles, createRepo, createUsers, git, giteaClient, giteaFailure, makeWorkdir, pushUrl, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * services/gitea-api: users and repositories through gitea-js, each field as Gitea's swagger
 * document names it (`User`, `Repository`, `Permission`, `SearchResults`), with Gitea's paging
 * headers, and githost's access: a private repository is a 404 for a stranger.
 */
let gh: TestGithost;
let ann: TestUser;
let bob: TestUser;
let cat: TestUser;
let demoId: string;
let secretId: string;

beforeAll(async () => {
  gh = await startTestGithost();
  [ann, bob, cat] = await createUsers(gh, 'ann', 'bob', 'cat');
  demoId = (await createRepo(gh, ann.token, 'demo', { description: 'the demo' })).id;
  secretId = (await createRepo(gh, ann.token, 'secret', { private: true })).id;
  await createRepo(gh, ann.token, 'empty');
  await addCollaborator(gh, ann.token, 'ann', 'secret', 'bob', 'write');
  const wd = makeWorkdir();
  await commitFiles(wd, { 'README.md': '# demo\n' }, 'initial');
  await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'demo'), 'main');
  await git(wd, 'push', '-q', pushUrl(gh, 'ann', ann.token, 'ann', 'secret'), 'main');
});

afterAll(async () => {
  await gh?.stop();
});

describe('Gitea API: users', () => {
  it('when a tool asks who it is, then Gitea\'s User with the email githost holds and the username as full name', async () => {
    const { data } = await giteaClient(gh, ann.token).user.userGetCurrent();
    expect(data).toMatchObject({ id: giteaIdOf('user', 'ann'), login: 'ann', username: 'ann', full_name: 'ann', email: 'ann@example.com', is_admin: false, active: true, html_url: `http://localhost:${gh.port}/ann`, visibility: 'public' });
  });

  it('when a tool asks for a user by name, then that user without an email; an unknown one is 404', async () => {
    const { data } = await giteaClient(gh, bob.token).users.userGet('ann');
    expect([data.id, data.login, data.email, typeof data.created]).toEqual([giteaIdOf('user', 'ann'), 'ann', '', 'string']);
    expect((await giteaFailure(giteaClient(gh, bob.token).users.userGet('nobody'))).status).toBe(404);
  });
});

describe('Gitea API: repositories', () => {
  it('when the owner asks for a repository, then every Repository field Gitea names, with admin permissions', async () => {
    const { data } = await giteaClient(gh, ann.token).repos.repoGet('ann', 'demo');
    expect(data).toMatchObject({
      id: giteaIdOf('repository', demoId),
      owner: { login: 'ann', id: giteaIdOf('user', 'ann') },
      name: 'demo',
      full_name: 'ann/demo',
      description: 'the demo',
      empty: false,
      private: false,
      fork: false,
      mirror: false,
      archived: false,
      default_branch: 'main',
      html_url: `http://localhost:${gh.port}/ann/demo`,
      url: `http://localhost:${gh.port}/api/v1/repos/ann/demo`,
      clone_url: `http://localhost:${gh.port}/ann/demo.git`,
      permissions: { admin: true, push: true, pull: true },
      has_issues: false,
      has_wiki: false,
      has_pull_requests: true,
      has_releases: false,
      allow_merge_commits: true,
      allow_rebase: false,
      allow_rebase_explicit: false,
      allow_squash_merge: true,
      allow_fast_forward_only_merge: true,
      object_format_name: 'sha1',
    });
    expect(data.ssh_url).toMatch(new RegExp(`^ssh://git@localhost:${gh.sshPort}/ann/demo\\.git$`));
    expect(typeof data.created_at).toBe('string');
  });

  it('when others ask, then their permissions: a write collaborator pushes, an anonymous reader pulls, a repository without branches is empty', async () => {
    expect((await giteaClient(gh, bob.token).repos.repoGet('ann', 'secret')).data.permissions).toEqual({ admin: false, push: true, pull: true });
    expect((await giteaClient(gh).repos.repoGet('ann', 'demo')).data.permissions).toEqual({ admin: false, push: false, pull: true });
    expect((await giteaClient(gh, ann.token).repos.repoGet('ann', 'empty')).data.empty).toBe(true);
  });

  it('when a stranger or an anonymous caller asks for a private repository, then 404 in Gitea\'s shape, as for one that does not exist', async () => {
    for (const client of [giteaClient(gh, cat.token), giteaClient(gh)]) {
      const failure = await giteaFailure(client.repos.repoGet('ann', 'secret'));
      expect([failure.status, Object.keys(failure.body as object).sort()]).toEqual([404, ['message', 'url']]);
    }
    expect((await giteaFailure(giteaClient(gh, ann.token).repos.repoGet('ann', 'nothing'))).status).toBe(404);
    expect((await giteaFailure(giteaClient(gh, cat.token).repositories.repoGetById(giteaIdOf('repository', secretId)))).status).toBe(404);
  });

  it('when a tool asks for a repository by its integer id, then the same repository', async () => {
    const { data } = await giteaClient(gh, bob.token).repositories.repoGetById(giteaIdOf('repository', secretId));
    expect([data.full_name, data.private, data.permissions]).toEqual(['ann/secret', true, { admin: false, push: true, pull: true }]);
  });

  it('when a tool lists the caller\'s repositories, then those it owns or collaborates on, paged with X-Total-Count and Link', async () => {
    const all = await giteaClient(gh, bob.token).user.userCurrentListRepos();
    expect([all.data.map((r) => r.full_name), all.headers.get('x-total-count')]).toEqual([['ann/secret'], '1']);
    const first = await giteaClient(gh, ann.token).user.userCurrentListRepos({ limit: 2, page: 1 });
    expect([first.data.length, first.headers.get('x-total-count')]).toEqual([2, '3']);
    expect(first.headers.get('link')).toBe(
      `<http://localhost:${gh.port}/api/v1/user/repos?limit=2&page=2>; rel="next",<http://localhost:${gh.port}/api/v1/user/repos?limit=2&page=2>; rel="last"`,
    );
    const second = await giteaClient(gh, ann.token).user.userCurrentListRepos({ limit: 2, page: 2 });
    expect(second.data.length).toBe(1);
    expect(new Set([...first.data, ...second.data].map((r) => r.name))).toEqual(new Set(['demo', 'secret', 'empty']));
  });

  it('when a tool searches, then Gitea\'s SearchResults of what the caller may read, by name and by owner (uid)', async () => {
    const byName = await giteaClient(gh, cat.token).repos.repoSearch({ q: 'de' });
    expect([byName.data.ok, byName.data.data?.map((r) => r.full_name), byName.headers.get('x-total-count')]).toEqual([true, ['ann/demo'], '1']);
    const anonymous = await giteaClient(gh).repos.repoSearch({});
    expect(anonymous.data.data?.map((r) => r.full_name).sort()).toEqual(['ann/demo', 'ann/empty']);
    // Renovate's autodiscovery: uid is the caller's own id.
    const mine = await giteaClient(gh, bob.token).repos.repoSearch({ uid: giteaIdOf('user', 'bob') });
    expect(mine.data.data?.map((r) => r.full_name)).toEqual(['ann/secret']);
    const owned = await giteaClient(gh, cat.token).repos.repoSearch({ uid: giteaIdOf('user', 'ann'), limit: 1 });
    expect([owned.data.data?.length, owned.headers.get('x-total-count')]).toEqual([1, '2']);
  });

  it('when the API behind says 401 for a bad token, then so does Gitea\'s; a read-only token reads', async () => {
    expect((await giteaFailure(giteaClient(gh, 'wrong').repos.repoGet('ann', 'demo'))).status).toBe(401);
    const read = await api(gh, 'POST', '/api/user/tokens', { token: bob.token, body: { name: 'read-only', scopes: ['read'] } });
    const { data } = await giteaClient(gh, read.body.token).repos.repoGet('ann', 'secret');
    // The gateway caps a read token's permission: Gitea's permissions say so.
    expect(data.permissions).toEqual({ admin: false, push: false, pull: true });
  });
});
