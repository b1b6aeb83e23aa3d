import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

const SECRET = 'e2e-webhook-secret';
const ZERO = '0'.repeat(40);

/** Webhooks through the gateway: the seed's rules, then real deliveries for `git push` and a merge. */
describe.each([['embedded' as const], ['real' as const]])('webhooks end to end on the %s backend', (backend) => {
  let gh: TestGithost;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let receiver: Receiver;
  let work: string;
  const hooks = '/api/repos/alice/hooked/webhooks';

  beforeAll(async () => {
    gh = await startTestGithost({ backend });
    alice = await createUser(gh, 'alice');
    bob = await createUser(gh, 'bob');
    carol = await createUser(gh, 'carol');
    await createRepo(gh, alice.token, 'hooked');
    await createRepo(gh, alice.token, 'other');
    await addCollaborator(gh, alice.token, 'alice', 'hooked', 'bob', 'write');
    await addCollaborator(gh, alice.token, 'alice', 'hooked', 'carol', 'read');
    receiver = await startReceiver(undefined, SECRET);
  });
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  it('when no credential is sent, then 401 Authentication required (seed §5)', async () => {
    const res = await api(gh, 'GET', hooks);
    expect([res.status, res.body]).toEqual([401, { error: 'Authentication required' }]);
  });

  it('when a reader creates, lists or deletes, then 400 Write access required (seed §4 rule 1, §7)', async () => {
    for (const [method, path, body] of [['POST', hooks, { url: receiver.url }], ['GET', hooks, undefined], ['DELETE', `${hooks}/x`, undefined]] as const) {
      const res = await api(gh, method, path, { token: carol.token, body });
      expect([res.status, res.body]).toEqual([400, { error: 'Write access required' }]);
    }
  });

  it('when url is missing, then 400 URL is required (seed §4 rule 2)', async () => {
    const res = await api(gh, 'POST', hooks, { token: alice.token, body: { events: 'push' } });
    expect([res.status, res.body]).toEqual([400, { error: 'URL is required' }]);
  });

  it('when a writer creates a webhook, then 201 with exactly the seed fields, events push, no secret (seed §2, §4 rule 3)', async () => {
    const res = await api(gh, 'POST', hooks, { token: bob.token, body: { url: `${receiver.url}?probe`, secret: SECRET } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'events', 'id', 'is_active', 'repo_id', 'url']);
    expect(res.body).toMatchObject({ url: `${receiver.url}?probe`, events: 'push', is_active: true });
    const list = await api(gh, 'GET', hooks, { token: alice.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([res.body]);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    expect((await api(gh, 'DELETE', `${hooks}/${res.body.id}`, { token: alice.token })).status).toBe(204);
  });

  it('when a webhook of another repository is deleted through this one, then 204 and it survives (seed §4 rule 4)', async () => {
    const theirs = await api(gh, 'POST', '/api/repos/alice/other/webhooks', { token: alice.token, body: { url: receiver.url } });
    const res = await api(gh, 'DELETE', `${hooks}/${theirs.body.id}`, { token: alice.token });
    expect([res.status, res.body]).toEqual([204, null]);
    const still = await api(gh, 'GET', '/api/repos/alice/other/webhooks', { token: alice.token });
    expect(still.body.map((w: { id: string }) => w.id)).toEqual([theirs.body.id]);
    expect((await api(gh, 'DELETE', `${hooks}/not-even-an-id`, { token: alice.token })).status).toBe(204);
  });

  it('when the owner pushes, then the receiver gets a signed push delivery with the CONTRACT §7 payload', async () => {
    const hook = await api(gh, 'POST', hooks, { token: alice.token, body: { url: receiver.url, secret: SECRET, events: 'push,merge_request' } });
    expect(hook.status).toBe(201);
    work = makeWorkdir();
    const sha = await commitFiles(work, { 'README.md': '# hooked\n' }, 'first commit');
    await git(work, 'remote', 'add', 'origin', pushUrl(gh, 'alice', alice.token, 'alice', 'hooked'));
    await git(work, 'push', '-q', 'origin', 'main');

    const push = await eventually(() => receiver.received.find((d) => d.body.event === 'push' && d.body.ref === 'refs/heads/main'));
    expect(push.signatureValid).toBe(true);
    expect(push.headers['x-githost-event']).toBe('push');
    expect(push.body).toEqual({
      event: 'push',
      ref: 'refs/heads/main',
      before: ZERO,
      after: sha,
      created: true,
      deleted: false,
      forced: false,
      repository: { owner: 'alice', name: 'hooked', full_name: 'alice/hooked' },
      sender: { username: 'alice' },
      commits: [{ id: sha, message: expect.stringMatching(/^first commit\n?$/), author: { name: 'E2E Author', email: 'author@example.com' }, timestamp: expect.any(String) }],
    });
    const deliveries = await api(gh, 'GET', `${hooks}/${hook.body.id}/deliveries`, { token: alice.token });
    expect(deliveries.body[0]).toMatchObject({ id: push.headers['x-githost-delivery'], event: 'push', status: 'delivered', attempts: 1, response_status: 204 });
  });

  it('when one push updates several refs, then one push delivery comes per ref (CONTRACT §9)', async () => {
    for (const b of ['multi-a', 'multi-b', 'multi-c']) await git(work, 'branch', b, 'main');
    await git(work, 'push', '-q', 'origin', 'multi-a', 'multi-b', 'multi-c');
    const refs = await eventually(() => {
      const seen = receiver.received.filter((d) => d.body.event === 'push' && String(d.body.ref).startsWith('refs/heads/multi-')).map((d) => d.body.ref);
      return seen.length >= 3 ? seen : undefined;
    });
    expect([...refs].sort()).toEqual(['refs/heads/multi-a', 'refs/heads/multi-b', 'refs/heads/multi-c']);
  });

  it('when a writer merges a merge request, then the receiver gets the seed §6 merge_request payload with the owner as sender', async () => {
    await git(work, 'checkout', '-q', '-b', 'feature');
    await commitFiles(work, { 'feature.txt': 'new\n' }, 'add feature');
    await git(work, 'push', '-q', 'origin', 'feature');
    const mr = await api(gh, 'POST', '/api/repos/alice/hooked/merge-requests', {
      token: bob.token,
      body: { title: 'Add feature', source_branch: 'feature', target_branch: 'main' },
    });
    expect(mr.status).toBe(201);
    const merged = await api(gh, 'POST', `/api/repos/alice/hooked/merge-requests/${mr.body.number}/merge`, { token: bob.token });
    expect(merged.status).toBe(200);

    const delivery = await eventually(() => receiver.received.find((d) => d.body.event === 'merge_request'));
    expect(delivery.signatureValid).toBe(true);
    expect(delivery.headers['x-githost-event']).toBe('merge_request');
    const { merge_request: mergeRequest, ...rest } = delivery.body;
    // seed §6: sender is the repository owner's name, not the merging user
    expect(rest).toEqual({
      event: 'merge_request',
      action: 'merged',
      repository: { owner: 'alice', name: 'hooked', full_name: 'alice/hooked' },
      sender: { username: 'alice' },
    });
    expect(mergeRequest).toMatchObject({ number: mr.body.number, title: 'Add feature', state: 'merged' });
    // CONTRACT §9: the merge moved main, so a push of main follows, pushed by the merger
    const mainPush = await eventually(() => receiver.received.find((d) => d.body.event === 'push' && d.body.ref === 'refs/heads/main' && d.body.after === merged.body.sha));
    expect(mainPush.body.sender).toEqual({ username: 'bob' });
  });
});
