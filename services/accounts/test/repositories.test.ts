import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { giteaIdOf, repositoryKey } from '@githost/gitea-ids';
import { cleanupWorkdirs, commitAll, git, makeWorkdir, pushTo, startTestStorage, writeFiles, type TestStorage } from '@githost/git-storage/testing';
import { ADMIN_TOKEN, Client, PUBLIC_URL, SECRET, startAccounts, type Backend, type Harness } from './harness.js';
import { startFakeStorage, type FakeStorage } from './fake-storage.js';
import { refPolicyOf, rpc } from './rpc.js';

/** docs/decisions/repositories.md: listing, changing and deleting repositories on the real service. */
describe.each<Backend>(['postgres', 'pglite'])('repository management on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;
  let anonymous: Client;
  let owner: Client;
  let writer: Client;
  let reader: Client;
  let stranger: Client;

  async function user(username: string): Promise<Client> {
    expect((await admin.request('POST', '/api/admin/users', { username, email: `${username}@example.test` })).status).toBe(201);
    return new Client(h, (await admin.request('POST', `/api/admin/users/${username}/tokens`, {})).body.token);
  }

  /** Every page of a list, 100 a page: its X-Total-Count and how many rows the pages gave. */
  async function everyPage(who: Client, path: string): Promise<{ total: number; rows: number }> {
    let rows = 0;
    for (let page = 1; ; page++) {
      const res = await who.requestWithHeaders('GET', `${path}?per_page=100&page=${page}`);
      rows += res.body.length;
      if (res.body.length < 100) return { total: Number(res.headers.get('x-total-count')), rows };
    }
  }

  const headOf = async (id: string) => (await git(storage.repoPath(id), 'symbolic-ref', 'HEAD')).trim();

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
    anonymous = new Client(h, null);
    owner = await user('olga');
    writer = await user('wendy');
    reader = await user('rob');
    stranger = await user('stan');
  }, 90_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
    await cleanupWorkdirs();
  });

  describe('PATCH', () => {
    let id: string;

    beforeAll(async () => {
      id = (await owner.request('POST', '/api/repos', { name: 'settings', description: 'before' })).body.id;
      expect((await owner.request('PUT', '/api/repos/olga/settings/collaborators/wendy', { permission: 'write' })).status).toBe(204);
      expect((await owner.request('PUT', '/api/repos/olga/settings/collaborators/rob', { permission: 'read' })).status).toBe(204);
    });

    it('when the owner changes description, visibility and tag changes, then 200 with the repository as it now is', async () => {
      const res = await owner.request('PATCH', '/api/repos/olga/settings', { description: 'after', private: true, allow_tag_changes: true });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, full_name: 'olga/settings', description: 'after', private: true, allow_tag_changes: true, default_branch: 'main', clone_url: `${PUBLIC_URL}/olga/settings.git` });
      expect((await owner.request('GET', '/api/repos/olga/settings')).body).toEqual(res.body);
      expect(await refPolicyOf(h.grpc, id)).toEqual({ default_branch: 'main', allow_tag_changes: true, protections: [] });
      expect((await owner.request('PATCH', '/api/repos/olga/settings', { description: null, private: false })).body).toMatchObject({ description: null, private: false });
    });

    it('when the repository is empty, then any valid default branch is taken and HEAD follows', async () => {
      expect((await owner.request('PATCH', '/api/repos/olga/settings', { default_branch: 'trunk' })).body.default_branch).toBe('trunk');
      expect(await headOf(id)).toBe('refs/heads/trunk');
    });

    it('when the repository has branches, then the default must be one of them, and HEAD follows', async () => {
      const w = await makeWorkdir();
      await writeFiles(w, { 'a.txt': 'a\n' });
      await commitAll(w, 'first');
      await git(w, 'branch', 'develop');
      await pushTo(storage, id, w, 'main', 'develop');
      expect(await owner.request('PATCH', '/api/repos/olga/settings', { default_branch: 'nope' })).toEqual({ status: 400, body: { error: 'default_branch must name an existing branch: nope' } });
      expect((await owner.request('PATCH', '/api/repos/olga/settings', { default_branch: 'develop' })).body.default_branch).toBe('develop');
      expect(await headOf(id)).toBe('refs/heads/develop');
      expect((await refPolicyOf(h.grpc, id)).default_branch).toBe('develop');
    });

    it.each([
      [{}, 'Nothing to change: give at least one of description, private, default_branch, allow_tag_changes'],
      [{ private: 'no' }, 'private must be true or false'],
      [{ default_branch: 'bad name' }, 'default_branch is not a valid branch name: it contains a space, a control character or one of ~ ^ : ? * [ \\'],
      [{ description: 'x'.repeat(1001) }, 'description must be at most 1000 characters'],
    ])('when the body is bad (%#), then 400 %s and nothing changes', async (body, message) => {
      const before = (await owner.request('GET', '/api/repos/olga/settings')).body;
      expect(await owner.request('PATCH', '/api/repos/olga/settings', body)).toEqual({ status: 400, body: { error: message } });
      expect((await owner.request('GET', '/api/repos/olga/settings')).body).toEqual(before);
    });

    it('when a writer or reader changes settings, then 403; a stranger on a private repository gets 404', async () => {
      expect(await writer.request('PATCH', '/api/repos/olga/settings', { private: true })).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect(await reader.request('PATCH', '/api/repos/olga/settings', {})).toEqual({ status: 403, body: { error: 'Forbidden' } });
      await owner.request('PATCH', '/api/repos/olga/settings', { private: true });
      expect(await stranger.request('PATCH', '/api/repos/olga/settings', { private: false })).toEqual({ status: 404, body: { error: 'Repository not found' } });
      expect((await owner.request('GET', '/api/repos/olga/settings')).body.private).toBe(true);
    });

    it('when collaborators are listed, then writers see them by username; readers get 403', async () => {
      expect(await writer.request('GET', '/api/repos/olga/settings/collaborators')).toEqual({ status: 200, body: [{ username: 'rob', permission: 'read' }, { username: 'wendy', permission: 'write' }] });
      expect(await reader.request('GET', '/api/repos/olga/settings/collaborators')).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect(await stranger.request('GET', '/api/repos/olga/settings/collaborators')).toEqual({ status: 404, body: { error: 'Repository not found' } });
    });
  });

  describe('DELETE', () => {
    it('when the owner deletes a repository, then its rows and directory go and the name is free at once', async () => {
      const old = (await owner.request('POST', '/api/repos', { name: 'doomed' })).body.id;
      await owner.request('PUT', '/api/repos/olga/doomed/collaborators/wendy', { permission: 'write' });
      await owner.request('PUT', '/api/repos/olga/doomed/branch-protections/main', { required_approvals: 1 });
      expect(await writer.request('DELETE', '/api/repos/olga/doomed')).toEqual({ status: 403, body: { error: 'Forbidden' } });
      expect((await owner.request('DELETE', '/api/repos/olga/doomed')).status).toBe(204);
      expect(existsSync(storage.repoPath(old))).toBe(false);
      expect(await owner.request('GET', '/api/repos/olga/doomed')).toEqual({ status: 404, body: { error: 'Repository not found' } });
      await expect(refPolicyOf(h.grpc, old)).rejects.toMatchObject({ kind: 'not_found' });

      const again = await owner.request('POST', '/api/repos', { name: 'doomed' });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(old);
      expect((await owner.request('GET', '/api/repos/olga/doomed/branch-protections')).body).toEqual([]);
      expect((await owner.request('GET', '/api/repos/olga/doomed/collaborators')).body).toEqual([]);
      expect(await headOf(again.body.id)).toBe('refs/heads/main');
    });

    it('when a stranger deletes a private repository, then 404 and it stays', async () => {
      await owner.request('POST', '/api/repos', { name: 'hidden', private: true });
      expect(await stranger.request('DELETE', '/api/repos/olga/hidden')).toEqual({ status: 404, body: { error: 'Repository not found' } });
      expect((await admin.request('DELETE', '/api/repos/olga/hidden')).status).toBe(204);
    });
  });

  describe('lists', () => {
    beforeAll(async () => {
      const lister = await user('lena');
      for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) expect((await lister.request('POST', '/api/repos', { name, private: name === 'a2' })).status).toBe(201);
      expect((await lister.request('PUT', '/api/repos/lena/a2/collaborators/rob', { permission: 'read' })).status).toBe(204);
    });

    it('when anonymous lists a user, then only public repositories; a collaborator also sees the private one', async () => {
      expect((await anonymous.request('GET', '/api/users/lena/repos')).body.map((r: { name: string }) => r.name)).toEqual(['a1', 'a3', 'a4', 'a5']);
      expect((await reader.request('GET', '/api/users/lena/repos')).body.map((r: { name: string }) => r.name)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
      expect((await admin.request('GET', '/api/users/LENA/repos')).body).toHaveLength(5);
      expect(await anonymous.request('GET', '/api/users/nobody/repos')).toEqual({ status: 404, body: { error: 'User not found' } });
    });

    it('when pages are asked for, then Link headers lead through them as GitHub sends them', async () => {
      const first = await anonymous.requestWithHeaders('GET', '/api/users/lena/repos?per_page=2&sort=x');
      expect(first.body.map((r: { name: string }) => r.name)).toEqual(['a1', 'a3']);
      expect(first.headers.get('link')).toBe(`<${PUBLIC_URL}/api/users/lena/repos?per_page=2&sort=x&page=2>; rel="next", <${PUBLIC_URL}/api/users/lena/repos?per_page=2&sort=x&page=2>; rel="last"`);
      const second = await anonymous.requestWithHeaders('GET', '/api/users/lena/repos?per_page=2&page=2');
      expect(second.body.map((r: { name: string }) => r.name)).toEqual(['a4', 'a5']);
      expect(second.headers.get('link')).toBe(`<${PUBLIC_URL}/api/users/lena/repos?per_page=2&page=1>; rel="prev", <${PUBLIC_URL}/api/users/lena/repos?per_page=2&page=1>; rel="first"`);
      const all = await anonymous.requestWithHeaders('GET', '/api/users/lena/repos?per_page=500&page=zero');
      expect([all.body.length, all.headers.get('link')]).toEqual([4, null]);
    });

    it('when the repositories of the site are explored, then each caller gets those they may read, newest first, filtered by name and paged', async () => {
      const explorer = await user('erin');
      for (const [name, priv] of [['Found-one', false], ['found-two', true], ['found_three', false]] as const) expect((await explorer.request('POST', '/api/repos', { name, private: priv })).status).toBe(201);
      const names = async (who: Client, query: string) => (await who.request('GET', `/api/repos?${query}`)).body.map((r: { full_name: string }) => r.full_name);
      expect(await names(anonymous, 'q=FOUND')).toEqual(['erin/found_three', 'erin/Found-one']);
      expect(await names(explorer, 'q=found')).toEqual(['erin/found_three', 'erin/found-two', 'erin/Found-one']);
      expect(await names(stranger, 'q=found')).toEqual(['erin/found_three', 'erin/Found-one']);
      expect(await names(admin, 'q=found')).toHaveLength(3);
      // The filter is a plain part of the name: `_` is no wildcard.
      expect(await names(anonymous, 'q=d_t')).toEqual(['erin/found_three']);
      const second = await explorer.requestWithHeaders('GET', '/api/repos?q=found&per_page=1&page=2');
      expect([second.body.map((r: { name: string }) => r.name), second.headers.get('link')]).toEqual([['found-two'], expect.stringContaining('rel="next"')]);
      expect((await anonymous.request('GET', '/api/repos')).body.map((r: { full_name: string }) => r.full_name)).toContain('lena/a1');
      expect(await anonymous.request('GET', `/api/repos?q=${'x'.repeat(101)}`)).toEqual({ status: 400, body: { error: 'q must be at most 100 characters' } });
      expect(await anonymous.request('GET', '/api/repos?q=a&q=b')).toEqual({ status: 400, body: { error: 'q must be given once' } });
    });

    it('when repositories are created at once, made private or public and deleted, then every caller\'s explore total is the count of what they may read (docs/decisions/explore-lists.md#the-count-of-a-page)', async () => {
      const counter = await user('cora');
      const guest = await user('gus');
      // The site's list, the owner's list as each caller sees it, and each one's own list.
      const agree = async () => {
        for (const who of [anonymous, counter, guest, stranger, admin]) {
          for (const path of ['/api/repos', '/api/users/cora/repos', ...(who === anonymous ? [] : ['/api/user/repos'])]) {
            const { total, rows } = await everyPage(who, path);
            expect([path, total]).toEqual([path, rows]);
          }
        }
      };
      const before = await Promise.all([anonymous, counter, guest, admin].map(async (who) => (await everyPage(who, '/api/repos')).total));
      // Created at once: each creation moves the kept counts in its own transaction.
      const made = await Promise.all(Array.from({ length: 12 }, (_, i) => counter.request('POST', '/api/repos', { name: `count-${i}`, private: i % 3 === 0 })));
      expect(made.map((r) => r.status)).toEqual(Array(12).fill(201));
      await agree();
      expect((await counter.request('PUT', '/api/repos/cora/count-0/collaborators/gus', { permission: 'read' })).status).toBe(204);
      for (const name of ['count-1', 'count-4']) expect((await counter.request('PATCH', `/api/repos/cora/${name}`, { private: true })).status).toBe(200);
      expect((await counter.request('PATCH', '/api/repos/cora/count-3', { private: false })).status).toBe(200);
      // A change that leaves the privacy as it was moves nothing.
      expect((await counter.request('PATCH', '/api/repos/cora/count-2', { private: false, description: 'same' })).status).toBe(200);
      await agree();
      expect((await counter.request('DELETE', '/api/repos/cora/count-2')).status).toBe(204);
      expect((await counter.request('DELETE', '/api/repos/cora/count-6')).status).toBe(204);
      await agree();
      // 12 made, 2 deleted; of the 10 left, private: 0, 1, 4, 9 (3 made public, 6 deleted); gus reads 0.
      const after = await Promise.all([anonymous, counter, guest, admin].map(async (who) => (await everyPage(who, '/api/repos')).total));
      expect(after.map((n, i) => n - before[i]!)).toEqual([6, 10, 7, 10]);
      const owned = await Promise.all([anonymous, counter, guest, admin].map(async (who) => (await everyPage(who, '/api/users/cora/repos')).total));
      expect(owned).toEqual([6, 10, 7, 10]);
      expect((await everyPage(guest, '/api/user/repos')).total).toBe(1);
    });

    it('when the explore list is asked for a Gitea id, then only the repository with that id, if the caller may read it (the id is giteaIdOf\'s)', async () => {
      const finder = await user('gina');
      const open = (await finder.request('POST', '/api/repos', { name: 'by-id' })).body;
      const hidden = (await finder.request('POST', '/api/repos', { name: 'by-id-private', private: true })).body;
      const byGiteaId = async (who: Client, id: number) => {
        const res = await who.requestWithHeaders('GET', `/api/repos?gitea_id=${id}`);
        return [res.body.map((r: { full_name: string }) => r.full_name), res.headers.get('x-total-count')];
      };
      expect(await byGiteaId(anonymous, giteaIdOf('repository', repositoryKey(open.id)))).toEqual([['gina/by-id'], '1']);
      expect(await byGiteaId(finder, giteaIdOf('repository', repositoryKey(hidden.id)))).toEqual([['gina/by-id-private'], '1']);
      expect(await byGiteaId(stranger, giteaIdOf('repository', repositoryKey(hidden.id)))).toEqual([[], '0']);
      // Every repository's stored id is the one packages/gitea-ids derives (the SQL and the TS agree).
      const all = await admin.request('GET', '/api/repos?per_page=100');
      for (const r of all.body as { id: string; full_name: string }[]) expect((await byGiteaId(admin, giteaIdOf('repository', repositoryKey(r.id))))[0]).toEqual([r.full_name]);
      expect(await anonymous.request('GET', '/api/repos?gitea_id=0')).toEqual({ status: 400, body: { error: 'gitea_id must be a positive integer, given once' } });
      expect(await anonymous.request('GET', '/api/repos?gitea_id=1&gitea_id=2')).toEqual({ status: 400, body: { error: 'gitea_id must be a positive integer, given once' } });
      expect((await anonymous.request('GET', '/api/repos?gitea_id=12x')).status).toBe(400);
    });

    it('when users are explored, then the ones not suspended come by username with no email, filtered by name', async () => {
      expect((await user('sue-explored')).token).toBeTruthy();
      expect((await user('sam-explored')).token).toBeTruthy();
      expect((await admin.request('PATCH', '/api/admin/users/sam-explored', { suspended: true })).status).toBe(200);
      const res = await anonymous.request('GET', '/api/users?q=EXPLORED');
      expect(res.status).toBe(200);
      expect(res.body).toEqual([{ username: 'sue-explored', created_at: expect.any(String) }]);
      expect((await anonymous.request('GET', '/api/users?per_page=100')).body.map((u: { username: string }) => u.username)).toEqual(expect.arrayContaining(['lena', 'olga']));
    });

    it('when users are added at once, suspended, restored and deleted, then the explore and admin totals are the count of what their pages give (docs/decisions/explore-lists.md#the-count-of-a-page)', async () => {
      const totals = async () => {
        const explored = await everyPage(admin, '/api/users');
        const all = await everyPage(admin, '/api/admin/users');
        expect([explored.total, all.total]).toEqual([explored.rows, all.rows]);
        return [explored.total, all.total];
      };
      const before = await totals();
      const added = await Promise.all(Array.from({ length: 8 }, (_, i) => admin.request('POST', '/api/admin/users', { username: `tally-${i}`, email: `tally-${i}@example.test` })));
      expect(added.map((r) => r.status)).toEqual(Array(8).fill(201));
      for (const name of ['tally-0', 'tally-1', 'tally-2']) expect((await admin.request('PATCH', `/api/admin/users/${name}`, { suspended: true })).status).toBe(200);
      // Suspending twice, or restoring one not suspended, moves nothing.
      expect((await admin.request('PATCH', '/api/admin/users/tally-0', { suspended: true })).status).toBe(200);
      expect((await admin.request('PATCH', '/api/admin/users/tally-7', { suspended: false })).status).toBe(200);
      expect((await admin.request('PATCH', '/api/admin/users/tally-1', { suspended: false })).status).toBe(200);
      await totals();
      expect((await admin.request('DELETE', '/api/admin/users/tally-2')).status).toBe(204);
      expect((await admin.request('DELETE', '/api/admin/users/tally-3')).status).toBe(204);
      // 8 added, 2 deleted; of the 6 left, tally-0 is suspended.
      expect((await totals()).map((n, i) => n - before[i]!)).toEqual([5, 6]);
    });

    it('when a user lists their own repositories, then owned and collaborating ones come by full name', async () => {
      const mine = await reader.request('GET', '/api/user/repos?per_page=100');
      expect(mine.body.map((r: { full_name: string }) => r.full_name)).toEqual(['lena/a2', 'olga/settings']);
      expect(await anonymous.request('GET', '/api/user/repos')).toEqual({ status: 401, body: { error: 'Authentication required' } });
      expect((await admin.request('GET', '/api/user/repos')).body).toEqual([]);
    });
  });
});

/** A failing RemoveRepository must leave the repository whole (CONTRACT §4: nothing half-written). */
describe('repository deletion when git-storage fails', () => {
  let storage: FakeStorage;
  let h: Harness;
  let owner: Client;

  beforeAll(async () => {
    storage = await startFakeStorage();
    h = await startAccounts('postgres', storage.address);
    const admin = new Client(h, ADMIN_TOKEN);
    for (const username of ['pia', 'quinn']) expect((await admin.request('POST', '/api/admin/users', { username, email: `${username}@example.test` })).status).toBe(201);
    owner = new Client(h, (await admin.request('POST', '/api/admin/users/pia/tokens', {})).body.token);
  });

  afterAll(async () => {
    await h?.close();
    await storage?.close();
  });

  it('when RemoveRepository fails, then 503 and the repository, its collaborators and protections remain usable', async () => {
    const id = (await owner.request('POST', '/api/repos', { name: 'sticky' })).body.id;
    await owner.request('PUT', '/api/repos/pia/sticky/collaborators/quinn', { permission: 'write' });
    await owner.request('PUT', '/api/repos/pia/sticky/branch-protections/main', { push: 'admin' });
    storage.failNextRemove();
    expect(await owner.request('DELETE', '/api/repos/pia/sticky')).toEqual({ status: 503, body: { error: 'upstream unavailable: disk gone' } });
    expect((await owner.request('GET', '/api/repos/pia/sticky')).body.id).toBe(id);
    expect((await owner.request('GET', '/api/repos/pia/sticky/collaborators')).body).toEqual([{ username: 'quinn', permission: 'write' }]);
    expect((await refPolicyOf(h.grpc, id)).protections.map((p) => p.push)).toEqual(['admin']);

    expect((await owner.request('DELETE', '/api/repos/pia/sticky')).status).toBe(204);
    expect(storage.removed).toEqual([id]);
    expect(storage.removalContexts).toEqual([{ owner: 'pia', name: 'sticky', pusher: 'pia', request_id: 'test' }]);
    await expect(rpc(h.grpc).getRepository({ id })).rejects.toMatchObject({ kind: 'not_found' });
  });
});
