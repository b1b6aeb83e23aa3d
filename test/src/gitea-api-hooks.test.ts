import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import type { Api } from 'gitea-js';
import { api, commitFiles, createBranchedRepo, createRepo, createUsers, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, addCollaborator, giteaClient, giteaFailure, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/**
 * The Gitea-compatible API's repository hooks, called with gitea-js through the gateway: Gitea's
 * `{type, config, events, active}` form mapped onto githost webhooks and their `type`
 * (docs/decisions/gitea-api.md#hooks), checked field by field and by a real delivery.
 */

type Refusal = { status: number; body: { message?: string; url?: string } };
/** What gitea-js rejected with (its status and Gitea's error body). */
const refusal = (p: Promise<unknown>) => giteaFailure(p) as Promise<Refusal>;

describe('Gitea API: hooks (gitea-js)', () => {
  let gh: TestGithost;
  let alice: TestUser;
  let rita: TestUser;
  let eve: TestUser;
  let receiver: Receiver;
  const as = (u: TestUser | null): Api<unknown> => giteaClient(gh, u?.token);

  beforeAll(async () => {
    gh = await startTestGithost();
    [alice, rita, eve] = await createUsers(gh, 'alice', 'rita', 'eve');
    await createRepo(gh, alice.token, 'app');
    await createRepo(gh, alice.token, 'secret', { private: true });
    await addCollaborator(gh, alice.token, 'alice', 'app', 'rita', 'read');
    receiver = await startReceiver();
  }, 240_000);
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  it('when alice creates a gitea hook, then 201 with Gitea\'s Hook; it is listed, found by id, and pushes are delivered in Gitea\'s format', async () => {
    const res = await as(alice).repos.repoCreateHook('alice', 'app', {
      type: 'gitea',
      config: { url: receiver.url, content_type: 'json', secret: 's3cret' },
      events: ['push', 'pull_request'],
      branch_filter: '*',
      active: true,
    });
    expect(res.status).toBe(201);
    const hook = res.data;
    expect(hook).toMatchObject({
      type: 'gitea',
      active: true,
      branch_filter: '*',
      authorization_header: '',
      config: { url: receiver.url, content_type: 'json', http_method: 'post' },
    });
    expect(hook.config).not.toHaveProperty('secret');
    expect(hook.events).toEqual(expect.arrayContaining(['push', 'create', 'delete', 'pull_request']));
    expect(Number.isSafeInteger(hook.id) && hook.id! > 0).toBe(true);
    expect(hook.created_at).toBe(hook.updated_at);

    const listed = await as(alice).repos.repoListHooks('alice', 'app');
    expect(listed.data).toEqual([hook]);
    expect(listed.headers.get('x-total-count')).toBe('1');
    expect((await as(alice).repos.repoGetHook('alice', 'app', hook.id!)).data).toEqual(hook);

    // githost's own API shows the same webhook with its events and type.
    const own = await api(gh, 'GET', '/api/repos/alice/app/webhooks', { token: alice.token });
    expect(own.body).toEqual([expect.objectContaining({ url: receiver.url, is_active: true, events: expect.stringContaining('push') })]);

    const wd = makeWorkdir();
    await commitFiles(wd, { 'README.md': 'hi\n' }, 'first');
    await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'app'), 'main');
    const push = await eventually(() => receiver.received.find((d) => d.headers['x-gitea-event'] === 'push'));
    expect(push.body).toMatchObject({ ref: 'refs/heads/main', repository: { full_name: 'alice/app' } });
    expect(push.headers['x-gitea-signature']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('when reviewers are requested and withdrawn through Gitea\'s API, then a pull_request hook with action review_requested / review_request_removed reaches a Gitea receiver, signed (X-Gitea-Signature)', async () => {
    const secret = 'rev1ew-secret';
    const signed = await startReceiver();
    try {
      const r = await createBranchedRepo(gh, alice, 'reviewed', { mainFiles: { 'README.md': 'r\n' }, branch: 'topic', branchFiles: { 't.txt': 't\n' } });
      const hook = await as(alice).repos.repoCreateHook('alice', 'reviewed', { type: 'gitea', config: { url: signed.url, content_type: 'json', secret }, events: ['pull_request_review_request'], active: true });
      expect(hook.data.events).toEqual(['pull_request_review_request']);
      const pr = (await as(alice).repos.repoCreatePullRequest('alice', 'reviewed', { head: 'topic', base: 'main', title: 'Topic' })).data;
      expect((await as(alice).repos.repoCreatePullReviewRequests('alice', 'reviewed', pr.number!, { reviewers: ['rita'] })).status).toBe(201);
      expect((await as(alice).repos.repoDeletePullReviewRequests('alice', 'reviewed', pr.number!, { reviewers: ['rita'] })).status).toBe(204);
      const ofAction = (action: string) => eventually(() => signed.received.find((d) => (d.body as { action?: string }).action === action), 30_000);
      for (const action of ['review_requested', 'review_request_removed']) {
        const d = await ofAction(action);
        // Woodpecker's Gitea forge: the hex HMAC-SHA256 of the raw body under the hook's secret.
        expect(d.headers['x-gitea-signature']).toBe(createHmac('sha256', secret).update(d.raw).digest('hex'));
        expect([d.headers['x-gitea-event'], d.headers['x-gitea-event-type']]).toEqual(['pull_request', 'pull_request_review_request']);
        expect(d.body).toMatchObject({
          action,
          number: pr.number,
          requested_reviewer: { login: 'rita', username: 'rita' },
          sender: { login: 'alice' },
          pull_request: { number: pr.number, title: 'Topic', state: 'open', head: { ref: 'topic' }, base: { ref: 'main' } },
          repository: { full_name: 'alice/reviewed' },
        });
      }
      // Only what the hook asked for: opening the pull request sent nothing to it.
      expect(signed.received.map((d) => (d.body as { action?: string }).action).sort()).toEqual(['review_request_removed', 'review_requested']);
      expect(r.head).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      await signed.close();
    }
  });

  it('when edited, then only what is given changes: events, active and url; githost\'s list agrees', async () => {
    const hook = (await as(alice).repos.repoCreateHook('alice', 'app', { type: 'slack', config: { url: 'https://hooks.example/a', content_type: 'json' }, events: ['push'], active: true })).data;
    const edited = await as(alice).repos.repoEditHook('alice', 'app', hook.id!, { events: ['status', 'pull_request_review_approved'], active: false });
    expect(edited.status).toBe(200);
    expect(edited.data).toMatchObject({ id: hook.id, type: 'slack', active: false, config: { url: 'https://hooks.example/a' } });
    expect(edited.data.events!.sort()).toEqual(['pull_request_review_approved', 'pull_request_review_comment', 'pull_request_review_rejected', 'status']);
    const moved = await as(alice).repos.repoEditHook('alice', 'app', hook.id!, { config: { url: 'https://hooks.example/b' } });
    expect(moved.data).toMatchObject({ active: false, config: { url: 'https://hooks.example/b' } });
    const own = (await api(gh, 'GET', '/api/repos/alice/app/webhooks', { token: alice.token })).body as Array<{ url: string; events: string; is_active: boolean }>;
    expect(own.find((w) => w.url === 'https://hooks.example/b')).toMatchObject({ events: 'status,merge_request_review', is_active: false });
  });

  it('when created without active, then it is inactive, as Gitea creates it', async () => {
    const hook = (await as(alice).repos.repoCreateHook('alice', 'app', { type: 'gitea', config: { url: 'https://hooks.example/off', content_type: 'json' } })).data;
    expect(hook).toMatchObject({ active: false, events: ['push', 'create', 'delete'] });
  });

  it('when deleted, then 204 and it is gone (404 afterwards)', async () => {
    const hook = (await as(alice).repos.repoCreateHook('alice', 'app', { type: 'gitea', config: { url: 'https://hooks.example/gone', content_type: 'json' }, active: true })).data;
    expect((await as(alice).repos.repoDeleteHook('alice', 'app', hook.id!)).status).toBe(204);
    expect((await refusal(as(alice).repos.repoGetHook('alice', 'app', hook.id!)))?.status).toBe(404);
    expect((await refusal(as(alice).repos.repoDeleteHook('alice', 'app', hook.id!)))?.status).toBe(404);
  });

  it('when the hook asks for what githost cannot send, then 422 with the reason', async () => {
    const create = (body: Parameters<Api<unknown>['repos']['repoCreateHook']>[2]) => refusal(as(alice).repos.repoCreateHook('alice', 'app', body));
    expect(await create({ type: 'discord', config: { url: 'https://x.example', content_type: 'json' } })).toMatchObject({ status: 422, body: { message: expect.stringContaining('Invalid hook type') } });
    expect(await create({ type: 'gitea', config: { url: 'https://x.example', content_type: 'form' } })).toMatchObject({ status: 422, body: { message: expect.stringContaining('Invalid content type') } });
    expect(await create({ type: 'gitea', config: { content_type: 'json' } as never })).toMatchObject({ status: 422, body: { message: 'Missing config option: url' } });
    expect(await create({ type: 'gitea', config: { url: 'https://x.example', content_type: 'json' }, branch_filter: 'main' })).toMatchObject({ status: 422 });
    expect(await create({ type: 'gitea', config: { url: 'ftp://x.example', content_type: 'json' } })).toMatchObject({ status: 422, body: { message: 'URL must use http or https' } });
  });

  it('when a reader or a stranger asks, then 403 for the reader and 404 for a private repository', async () => {
    expect((await refusal(as(rita).repos.repoListHooks('alice', 'app')))?.status).toBe(403);
    expect((await refusal(as(rita).repos.repoCreateHook('alice', 'app', { type: 'gitea', config: { url: 'https://x.example', content_type: 'json' } })))?.status).toBe(403);
    expect((await refusal(as(eve).repos.repoListHooks('alice', 'secret')))?.status).toBe(404);
    expect((await refusal(as(null).repos.repoListHooks('alice', 'secret')))?.status).toBe(404);
    expect((await refusal(as(null).repos.repoListHooks('alice', 'app')))?.status).toBe(401);
  });
});
