import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUsers, eventually, git, makeWorkdir, pushUrl, startTestGithost, textOf, webGet, type TestGithost, type TestUser } from './support/index.js';

/**
 * Explore (docs/decisions/explore-lists.md): the site's repositories a person may read, newest
 * first, with a name filter and pages, and its users; the anonymous home lists the newest.
 * Through the gateway, anonymous and signed in with the web's session cookie.
 */
let gh: TestGithost;
let alice: TestUser;
let carol: TestUser;
let bobCookie: string;

/** More public repositories than one page of Explore holds (30). */
const MANY = 31;
const PASSWORD = 'bob has a long password';

/** The repositories a page lists, in order, by full name. */
const listed = (html: string) => [...html.matchAll(/<li><a href="\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);

beforeAll(async () => {
  gh = await startTestGithost();
  [alice, , carol] = await createUsers(gh, 'alice', 'bob', 'carol');
  for (let i = 1; i <= MANY; i++) await createRepo(gh, alice.token, `many-${String(i).padStart(2, '0')}`);
  await createRepo(gh, alice.token, 'secret-plans', { private: true, description: 'Only for alice and bob' });
  await createRepo(gh, carol.token, 'carols-secret', { private: true });
  await createRepo(gh, carol.token, 'carols-public', { description: 'Newest of all' });
  await addCollaborator(gh, alice.token, 'alice', 'secret-plans', 'bob', 'read');
  await api(gh, 'PUT', '/api/admin/users/bob/password', { token: gh.adminToken, body: { password: PASSWORD } });
  const session = await api(gh, 'POST', '/api/sessions', { body: { username: 'bob', password: PASSWORD } });
  bobCookie = `githost_session=${encodeURIComponent(session.body.secret as string)}`;
}, 180_000);

afterAll(async () => {
  await gh?.stop();
});

describe('explore', () => {
  it('when Explore is read anonymously, then public repositories come newest first and no private one shows', async () => {
    const res = await webGet(gh, '/-/explore');
    expect(res.status).toBe(200);
    const repos = listed(res.html);
    expect(repos.slice(0, 3)).toEqual(['carol/carols-public', 'alice/many-31', 'alice/many-30']);
    expect(repos).toHaveLength(30);
    expect(res.html).not.toContain('secret');
    expect(textOf(res.html)).toContain('Newest of all');
  });

  it('when the next page is followed, then the rest come, each repository on one page only', async () => {
    const first = await webGet(gh, '/-/explore');
    expect(first.html).toContain('href="/-/explore?page=2" rel="next"');
    const second = await webGet(gh, '/-/explore?page=2');
    expect(listed(second.html)).toEqual(['alice/many-02', 'alice/many-01']);
    expect(second.html).toContain('href="/-/explore" rel="prev"');
    expect(new Set([...listed(first.html), ...listed(second.html)]).size).toBe(MANY + 1);
  });

  it('when a name filter is given, then only repositories with it in their name show, in any letter case', async () => {
    const res = await webGet(gh, '/-/explore?q=CAROL');
    expect(listed(res.html)).toEqual(['carol/carols-public']);
    expect(res.html).toContain('value="CAROL"');
    expect(textOf((await webGet(gh, '/-/explore?q=nothing-like-it')).html)).toContain('No repository you can see has “nothing-like-it” in its name.');
  });

  it('when a signed-in person explores, then the private repositories they can read show too, and no others', async () => {
    const res = await webGet(gh, '/-/explore?q=secret', { cookie: bobCookie });
    expect(res.status).toBe(200);
    expect(textOf(res.html)).toContain('Sign out');
    expect(listed(res.html)).toEqual(['alice/secret-plans']);
    expect(textOf(res.html)).toContain('Private');
    expect(listed((await webGet(gh, '/-/explore?q=secret')).html)).toEqual([]);
  });

  it('when users are explored, then each links to their page and the filter narrows them; a suspended user is not listed', async () => {
    const all = await webGet(gh, '/-/explore/users');
    expect(all.status).toBe(200);
    for (const name of ['alice', 'bob', 'carol']) expect(all.html).toContain(`<a href="/${name}">${name}</a>`);
    expect(all.html).not.toContain('@example.com');
    expect(listed((await webGet(gh, '/-/explore/users?q=AR')).html)).toEqual(['carol']);
    expect((await api(gh, 'PATCH', '/api/admin/users/carol', { token: gh.adminToken, body: { suspended: true } })).status).toBe(200);
    try {
      expect((await webGet(gh, '/-/explore/users')).html).not.toContain('<a href="/carol">');
    } finally {
      await api(gh, 'PATCH', '/api/admin/users/carol', { token: gh.adminToken, body: { suspended: false } });
    }
  });

  it('when a filter longer than any name is sent, then the page is a 400 that says so', async () => {
    const res = await webGet(gh, `/-/explore?q=${'x'.repeat(101)}`);
    expect(res.status).toBe(400);
    expect(textOf(res.html)).toContain('q must be at most 100 characters');
  });

  it('when the explore lists are asked of the API through the gateway, then they answer as openapi.yaml describes, with GitHub paging', async () => {
    const repos = await api(gh, 'GET', '/api/repos?q=many&per_page=10&page=2');
    expect([repos.status, repos.body.map((r: { name: string }) => r.name)]).toEqual([200, ['many-21', 'many-20', 'many-19', 'many-18', 'many-17', 'many-16', 'many-15', 'many-14', 'many-13', 'many-12']]);
    expect(repos.headers.get('link')).toContain('rel="next"');
    const mine = await api(gh, 'GET', '/api/repos?q=secret', { token: alice.token });
    expect(mine.body.map((r: { full_name: string }) => r.full_name)).toEqual(['alice/secret-plans']);
    const users = await api(gh, 'GET', '/api/users?q=ali');
    expect(users).toMatchObject({ status: 200, body: [{ username: 'alice' }] });
    expect(await api(gh, 'GET', `/api/users?q=${'y'.repeat(101)}`)).toMatchObject({ status: 400, body: { error: 'q must be at most 100 characters' } });
  });

  it('when the home page is read anonymously, then the newest public repositories show with a link to Explore', async () => {
    const res = await webGet(gh, '/');
    expect(res.status).toBe(200);
    expect(listed(res.html).slice(0, 2)).toEqual(['carol/carols-public', 'alice/many-31']);
    expect(res.html).not.toContain('secret');
    expect(res.html).toContain('href="/-/explore"');
    expect(res.html).toContain('href="/-/sign-in"');
  });
});

// Last: it changes the order the tests above read.
describe('explore by newest activity', () => {
  it('when the repository created first is pushed to, then the API, Explore and the home page list it first', async () => {
    const work = makeWorkdir();
    await commitFiles(work, { 'README.md': '# the oldest, pushed last\n' }, 'first commit');
    await git(work, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'many-01'), 'main');
    // git-storage tells accounts of the push through the event bus, after the push answered.
    const names = await eventually(async () => {
      const res = await api(gh, 'GET', '/api/repos?per_page=3');
      const order = (res.body as { full_name: string }[]).map((r) => r.full_name);
      return order[0] === 'alice/many-01' ? order : undefined;
    });
    expect(names).toEqual(['alice/many-01', 'carol/carols-public', 'alice/many-31']);
    expect(listed((await webGet(gh, '/-/explore')).html).slice(0, 3)).toEqual(names);
    expect(listed((await webGet(gh, '/')).html).slice(0, 2)).toEqual(names.slice(0, 2));
    expect(listed((await webGet(gh, '/-/explore?page=2')).html)).toEqual(['alice/many-03', 'alice/many-02']);
  });
});
