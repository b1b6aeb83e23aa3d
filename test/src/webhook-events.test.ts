import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addCollaborator, api, commitFiles, createRepo, createUser, eventually, git, makeWorkdir, pushUrl, startReceiver, startTestGithost, type Receiver, type TestGithost, type TestUser } from './support/index.js';

/** Webhook event names (CONTRACT §9) and pings through the gateway, with real pushes and merges. */
let gh: TestGithost;
let alice: TestUser;
let carol: TestUser;
let receiver: Receiver;
let work: string;
const hooks = '/api/repos/alice/events/webhooks';
const mrs = '/api/repos/alice/events/merge-requests';
const hookIds: Record<string, string> = {};

const createHook = async (path: string, events: string): Promise<string> => {
  const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/${path}`, events } });
  if (res.status !== 201) throw new Error(`create webhook ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
};
const deliveries = async (path: string) => (await api(gh, 'GET', `${hooks}/${hookIds[path]}/deliveries`, { token: alice.token })).body as Array<{ id: string; event: string; status: string }>;
const receivedAt = (path: string) => receiver.received.filter((d) => d.path === `/${path}`);

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  carol = await createUser(gh, 'carol');
  await createRepo(gh, alice.token, 'events');
  await addCollaborator(gh, alice.token, 'alice', 'events', 'carol', 'read');
  receiver = await startReceiver();
  work = makeWorkdir();
  await commitFiles(work, { 'README.md': '# events\n' }, 'first');
  await git(work, 'remote', 'add', 'origin', pushUrl(gh, 'alice', alice.token, 'alice', 'events'));
  await git(work, 'push', '-q', 'origin', 'main');
  hookIds.seed = await createHook('seed', 'merge_request');
  hookIds.both = await createHook('both', 'merge_request, merge_request.merged');
  hookIds.all = await createHook('all', '*');
  hookIds.ping = await createHook('ping', 'status');
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await gh?.stop();
});

describe('webhook events by name', () => {
  it('when two merge requests are opened, commented on and merged, then a merge_request hook gets exactly one delivery per merge, action merged, and nothing for the other actions', async () => {
    const numbers: number[] = [];
    for (const branch of ['feature/one', 'feature/two']) {
      await git(work, 'checkout', '-q', '-b', branch, 'main');
      await commitFiles(work, { [`${branch.replace('/', '-')}.txt`]: `${branch}\n` }, `work on ${branch}`);
      await git(work, 'push', '-q', 'origin', branch);
      const mr = await api(gh, 'POST', mrs, { token: alice.token, body: { title: `Merge ${branch}`, source_branch: branch, target_branch: 'main' } });
      expect(mr.status).toBe(201);
      numbers.push(mr.body.number);
      expect((await api(gh, 'POST', `${mrs}/${mr.body.number}/comments`, { token: alice.token, body: { body: 'looks good' } })).status).toBe(201);
      expect((await api(gh, 'POST', `${mrs}/${mr.body.number}/merge`, { token: alice.token })).status).toBe(200);
      await git(work, 'checkout', '-q', 'main');
    }
    // `*` receives every event; once it has both merges, each hook's deliveries for them are recorded.
    await eventually(() => (receivedAt('all').filter((d) => d.event === 'merge_request' && d.body.action === 'merged').length === 2 ? true : undefined), 30_000);
    await eventually(async () => ((await deliveries('seed')).every((d) => d.status === 'delivered') && receivedAt('seed').length === 2 ? true : undefined), 30_000);
    for (const path of ['seed', 'both']) {
      expect((await deliveries(path)).map((d) => d.event)).toEqual(['merge_request', 'merge_request']);
      expect(receivedAt(path).map((d) => [d.event, d.body.action, (d.body.merge_request as { number: number }).number])).toEqual(numbers.map((n) => ['merge_request', 'merged', n]));
    }
    const seedMerge = receivedAt('seed')[0]!.body;
    expect({ ...seedMerge, merge_request: undefined }).toEqual({ event: 'merge_request', action: 'merged', repository: { owner: 'alice', name: 'events', full_name: 'alice/events' }, sender: { username: 'alice' }, merge_request: undefined });
    // `*` also got the pushes of the merges (and any lifecycle actions), each kind under its own name
    expect(receivedAt('all').filter((d) => d.event === 'push').length).toBeGreaterThanOrEqual(4);
    expect(receivedAt('all').every((d) => d.event === d.body.event)).toBe(true);
    // the hook on `status` got nothing: no status was posted
    expect(await deliveries('ping')).toEqual([]);
  });

  it('when events names an unknown event, then 400 naming it and no webhook is created', async () => {
    const before = (await api(gh, 'GET', hooks, { token: alice.token })).body.length;
    for (const name of ['merge_request.deleted', 'ping', 'pull_request']) {
      const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/x`, events: `push,${name}` } });
      expect([res.status, res.body]).toEqual([400, { error: `Unknown event: ${name}` }]);
    }
    expect((await api(gh, 'GET', hooks, { token: alice.token })).body.length).toBe(before);
  });
});

describe('POST .../webhooks/{id}/pings', () => {
  it('when the owner pings a webhook, then 204, the receiver gets a ping with X-Githost-Event ping, and it appears in the deliveries list', async () => {
    const res = await api(gh, 'POST', `${hooks}/${hookIds.ping}/pings`, { token: alice.token });
    expect([res.status, res.body]).toEqual([204, null]);
    const ping = await eventually(() => receivedAt('ping')[0]);
    expect(ping.headers['x-githost-event']).toBe('ping');
    expect(ping.body).toEqual({ event: 'ping', hook_id: hookIds.ping, repository: { owner: 'alice', name: 'events', full_name: 'alice/events' }, sender: { username: 'alice' } });
    const list = await eventually(async () => {
      const l = await deliveries('ping');
      return l.length === 1 && l[0]!.status === 'delivered' ? l : undefined;
    });
    expect(list[0]).toMatchObject({ id: ping.headers['x-githost-delivery'], event: 'ping', status: 'delivered' });
    // to that webhook only
    expect(receiver.received.filter((d) => d.event === 'ping').map((d) => d.path)).toEqual(['/ping']);
  });

  it('when the webhook is unknown, then 404; when the caller may only read, then the seed’s 400', async () => {
    const unknown = await api(gh, 'POST', `${hooks}/7d1f7c1e-5a0e-4f4b-9d38-2f9b6f3f0a11/pings`, { token: alice.token });
    expect([unknown.status, unknown.body]).toEqual([404, { error: 'Webhook not found' }]);
    const reader = await api(gh, 'POST', `${hooks}/${hookIds.ping}/pings`, { token: carol.token });
    expect([reader.status, reader.body]).toEqual([400, { error: 'Write access required' }]);
  });
});
