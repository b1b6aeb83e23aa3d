import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { api, createRepo, eventually, git, makeWorkdir, pushUrl, startReceiver, type Delivery, type Receiver, type TestGithost, type TestUser } from '../support/index.js';
import { History } from './history.js';
import { addCastCollaborators, createCast, startConformanceGithost } from './setup.js';

/**
 * Seed §2 (webhook fields), §4 webhook rules 1-4, §5, §6 (merge_request payload), §7, and
 * CONTRACT §5/§7/§9 (events list, delivery format, push payload), through the gateway with
 * deliveries to a real local HTTP receiver.
 */
// The machine is shared; slow, not wrong, must not fail a test.
jest.setTimeout(60_000);

const T0 = 1_600_000_000;
const ZERO = '0'.repeat(40);
const SECRET = 'conformance-secret';
const WEBHOOK_FIELDS = ['created_at', 'events', 'id', 'is_active', 'repo_id', 'url'];
const DELIVERY_FIELDS = ['attempts', 'created_at', 'delivered_at', 'duration_ms', 'error', 'event', 'id', 'response_status', 'status'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

describe('seed §4 webhooks and §6 events, through the gateway', () => {
  let gh: TestGithost;
  let alice: TestUser; // owner
  let bob: TestUser; // write collaborator
  let carol: TestUser; // read collaborator
  let dave: TestUser; // signed in, no relation
  let receiver: Receiver;
  let repoId: string;
  const hooks = '/api/repos/alice/hooks/webhooks';
  const at = (path: string) => receiver.received.filter((d) => d.path === path);

  beforeAll(async () => {
    gh = await startConformanceGithost();
    ({ alice, bob, carol, dave } = await createCast(gh));
    repoId = (await createRepo(gh, alice.token, 'hooks')).id;
    await createRepo(gh, alice.token, 'other');
    await createRepo(gh, alice.token, 'secret-repo', { private: true });
    await addCastCollaborators(gh, alice, 'hooks');
    receiver = await startReceiver((path) => (path === '/gone' ? 410 : path === '/broken' ? 500 : 204));
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await gh?.stop();
  });

  describe('management (rules 1-4)', () => {
    it('when no credential is sent, then 401 Authentication required on create, list and delete (§5 required)', async () => {
      for (const [method, path] of [['POST', hooks], ['GET', hooks], ['DELETE', `${hooks}/x`]] as const) {
        const res = await api(gh, method, path, { body: method === 'POST' ? { url: receiver.url } : undefined });
        expect([method, res.status, res.body]).toEqual([method, 401, { error: 'Authentication required' }]);
      }
    });

    it('when a read collaborator or an unrelated user calls any of the three, then 400 Write access required (rule 1, §7)', async () => {
      for (const who of [carol, dave]) {
        for (const [method, path] of [['POST', hooks], ['GET', hooks], ['DELETE', `${hooks}/x`]] as const) {
          const res = await api(gh, method, path, { token: who.token, body: method === 'POST' ? { url: receiver.url } : undefined });
          expect([who.username, method, res.status, res.body]).toEqual([who.username, method, 400, { error: 'Write access required' }]);
        }
      }
    });

    it('when a reader posts without url, then the write check answers first', async () => {
      const res = await api(gh, 'POST', hooks, { token: carol.token, body: {} });
      expect([res.status, res.body]).toEqual([400, { error: 'Write access required' }]);
    });

    it('when url is missing or empty, then 400 URL is required (rule 2)', async () => {
      for (const body of [{}, { url: '' }, { events: 'push', secret: 's' }]) {
        const res = await api(gh, 'POST', hooks, { token: alice.token, body });
        expect([body, res.status, res.body]).toEqual([body, 400, { error: 'URL is required' }]);
      }
    });

    it('when only url is given, then 201 with EXACTLY id, repo_id, url, events=push, is_active=true, created_at (§2, rule 3)', async () => {
      const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/minimal` } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_FIELDS);
      expect(res.body).toMatchObject({ repo_id: repoId, url: `${receiver.url}/minimal`, events: 'push', is_active: true });
      expect(typeof res.body.id).toBe('string');
      expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    });

    it('when a secret is given, then no response of create or list carries it (§2)', async () => {
      const res = await api(gh, 'POST', hooks, { token: bob.token, body: { url: `${receiver.url}/secretive`, secret: SECRET } });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(WEBHOOK_FIELDS);
      const list = await api(gh, 'GET', hooks, { token: bob.token });
      expect(JSON.stringify(res.body) + JSON.stringify(list.body)).not.toContain(SECRET);
      expect(list.body.every((w: object) => !('secret' in w))).toBe(true);
    });

    it('when events is empty, then push; named lists and * are accepted (CONTRACT §5, §9)', async () => {
      for (const [events, expected] of [['', 'push'], ['merge_request', 'merge_request'], ['*', '*']]) {
        const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/probe`, events } });
        expect([events, res.status, res.body.events]).toEqual([events, 201, expected]);
        await api(gh, 'DELETE', `${hooks}/${res.body.id}`, { token: alice.token });
      }
    });

    it('when events names an unknown kind, then 400 Unknown event: <name> (CONTRACT §9)', async () => {
      const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/probe`, events: 'push, pull_request' } });
      expect([res.status, res.body]).toEqual([400, { error: 'Unknown event: pull_request' }]);
    });

    it('when listed by a writer, then this repository\'s webhooks only, each with exactly the six fields', async () => {
      const theirs = await api(gh, 'POST', '/api/repos/alice/other/webhooks', { token: alice.token, body: { url: `${receiver.url}/other` } });
      const res = await api(gh, 'GET', hooks, { token: bob.token });
      expect(res.status).toBe(200);
      expect(Array.isArray(res.body)).toBe(true);
      expect(res.body.map((w: { url: string }) => w.url).sort()).toEqual([`${receiver.url}/minimal`, `${receiver.url}/secretive`]);
      for (const w of res.body) {
        expect(Object.keys(w).sort()).toEqual(WEBHOOK_FIELDS);
        expect(w.repo_id).toBe(repoId);
      }
      expect(res.body.map((w: { id: string }) => w.id)).not.toContain(theirs.body.id);
    });

    it('when a webhook is deleted, then 204 with an empty body and it is gone', async () => {
      const made = await api(gh, 'POST', hooks, { token: alice.token, body: { url: `${receiver.url}/doomed` } });
      const res = await fetch(`${gh.url}${hooks}/${made.body.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${bob.token}` } });
      expect([res.status, await res.text()]).toEqual([204, '']);
      const list = await api(gh, 'GET', hooks, { token: alice.token });
      expect(list.body.map((w: { id: string }) => w.id)).not.toContain(made.body.id);
      const again = await api(gh, 'DELETE', `${hooks}/${made.body.id}`, { token: alice.token });
      expect([again.status, again.body]).toEqual([204, null]);
    });

    it('when another repository\'s webhook id is deleted through this one, then 204 and it survives (rule 4)', async () => {
      const theirs = (await api(gh, 'GET', '/api/repos/alice/other/webhooks', { token: alice.token })).body[0];
      const res = await api(gh, 'DELETE', `${hooks}/${theirs.id}`, { token: alice.token });
      expect([res.status, res.body]).toEqual([204, null]);
      const still = await api(gh, 'GET', '/api/repos/alice/other/webhooks', { token: alice.token });
      expect(still.body).toEqual([theirs]);
    });

    it('when the id is malformed or unknown, then 204 (CONTRACT §9)', async () => {
      for (const id of ['not-an-id', '00000000-0000-0000-0000-000000000000', '12345', '%27%3B--']) {
        const res = await api(gh, 'DELETE', `${hooks}/${id}`, { token: alice.token });
        expect([id, res.status]).toEqual([id, 204]);
      }
    });

    it('when the repository is private and the caller cannot read it, then 404 Repository not found (CONTRACT §3)', async () => {
      const res = await api(gh, 'GET', '/api/repos/alice/secret-repo/webhooks', { token: dave.token });
      expect([res.status, res.body]).toEqual([404, { error: 'Repository not found' }]);
      const missing = await api(gh, 'POST', '/api/repos/alice/nothere/webhooks', { token: alice.token, body: { url: receiver.url } });
      expect([missing.status, missing.body]).toEqual([404, { error: 'Repository not found' }]);
    });
  });

  describe('deliveries (§6, CONTRACT §7, §9)', () => {
    const ids: Record<string, string> = {};
    let work: string;
    let mainSha = '';
    let featureSha = '';
    const manyShas: string[] = [];

    beforeAll(async () => {
      for (const [name, body] of [
        ['all', { events: '*', secret: SECRET }],
        ['mr', { events: 'merge_request', secret: SECRET }],
        ['push', { secret: SECRET }],
        ['both', { events: ' push , merge_request ' }],
        ['blank-secret', { events: 'merge_request', secret: '' }],
        ['dead', { events: '*' }],
        ['gone', { events: 'merge_request' }],
        ['broken', { events: 'merge_request' }],
      ] as const) {
        const url = name === 'dead' ? 'http://127.0.0.1:9/' : `${receiver.url}/${name}`;
        const res = await api(gh, 'POST', hooks, { token: alice.token, body: { url, ...body } });
        if (res.status !== 201) throw new Error(`hook ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        ids[name] = res.body.id;
      }
      work = makeWorkdir();
      await git(work, 'init', '-q', '-b', 'main');
      const h = new History();
      const c0 = h.commit({ ref: 'refs/heads/main', message: 'base\n', date: T0, files: { 'a.txt': 'a\n' } });
      h.commit({ ref: 'refs/heads/feature', from: c0, message: 'feature\n', date: T0 + 5, files: { 'f.txt': 'f\n' } });
      for (let i = 1; i <= 25; i++) h.commit({ ref: 'refs/heads/many', from: i === 1 ? c0 : undefined, message: `many ${i}\n`, date: T0 + 100 + i, files: { 'n.txt': `${i}\n` } });
      await h.importInto(work);
      mainSha = await git(work, 'rev-parse', 'refs/heads/main');
      featureSha = await git(work, 'rev-parse', 'refs/heads/feature');
      manyShas.push(...(await git(work, 'rev-list', '--reverse', `${mainSha}..refs/heads/many`)).split('\n'));
      await git(work, 'remote', 'add', 'origin', pushUrl(gh, 'alice', alice.token, 'alice', 'hooks'));
      await git(work, 'push', '-q', 'origin', 'main');
    });

    const pushOf = (path: string, ref: string, after?: string) => eventually(() => at(path).find((d) => d.body.event === 'push' && d.body.ref === ref && (after === undefined || d.body.after === after)));

    it('when a branch is created by git push, then the push payload is exactly CONTRACT §7 (before 40 zeros, created)', async () => {
      const d = await pushOf('/push', 'refs/heads/main');
      expect(d.body).toEqual({
        event: 'push', ref: 'refs/heads/main', before: ZERO, after: mainSha, created: true, deleted: false, forced: false,
        repository: { owner: 'alice', name: 'hooks', full_name: 'alice/hooks' },
        sender: { username: 'alice' },
        commits: [{ id: mainSha, message: 'base\n', author: { name: 'Conformance Author', email: 'conformance@example.com' }, timestamp: expect.any(String) }],
      });
      // CONTRACT §9: timestamp is the author date
      const [first] = d.body.commits as { timestamp: string }[];
      expect(Date.parse(first?.timestamp ?? '')).toBe(T0 * 1000);
    });

    it('when a push brings 25 new commits, then commits holds the 20 newest, oldest first', async () => {
      await git(work, 'push', '-q', 'origin', 'many');
      const d = await pushOf('/push', 'refs/heads/many');
      const commits = d.body.commits as { id: string; message: string }[];
      expect(commits.map((c) => c.id)).toEqual(manyShas.slice(5));
      expect(commits[19]?.message).toBe('many 25\n');
    });

    it('when a branch is deleted by git push, then deleted=true, after is 40 zeros and no commits', async () => {
      const tip = manyShas[24];
      await git(work, 'push', '-q', 'origin', '--delete', 'many');
      const d = await eventually(() => at('/push').find((x) => x.body.ref === 'refs/heads/many' && x.body.deleted === true));
      expect(d.body).toMatchObject({ before: tip, after: ZERO, created: false, deleted: true, commits: [] });
    });

    it('when a writer merges, then the merge_request payload is exactly seed §6 with the OWNER as sender, signed with the secret', async () => {
      await git(work, 'push', '-q', 'origin', 'feature');
      const mr = await api(gh, 'POST', '/api/repos/alice/hooks/merge-requests', { token: dave.token, body: { title: 'Hooked feature', source_branch: 'feature', target_branch: 'main' } });
      expect(mr.status).toBe(201);
      const merged = await api(gh, 'POST', `/api/repos/alice/hooks/merge-requests/${mr.body.number}/merge`, { token: bob.token });
      // seed §6: a delivery outcome (here: a dead target) does not change the merge response
      expect([merged.status, merged.body]).toEqual([200, { merged: true, sha: featureSha, strategy: 'fast-forward' }]);

      const d: Delivery = await eventually(() => at('/mr').find((x) => x.body.event === 'merge_request'));
      const { merge_request: inner, ...top } = d.body;
      expect(top).toEqual({
        event: 'merge_request',
        action: 'merged',
        repository: { owner: 'alice', name: 'hooks', full_name: 'alice/hooks' },
        sender: { username: 'alice' },
      });
      expect(inner).toMatchObject({ number: mr.body.number, title: 'Hooked feature', state: 'merged' });
      expect(d.method).toBe('POST');
      expect(d.headers['content-type']).toMatch(/^application\/json/);
      expect(d.headers['user-agent']).toMatch(/^githost-hookshot\//);
      expect(d.headers['x-githost-event']).toBe('merge_request');
      expect(d.headers['x-githost-delivery']).toMatch(UUID);
      expect(d.headers['x-hub-signature-256']).toBe(`sha256=${createHmac('sha256', SECRET).update(d.raw).digest('hex')}`);
    });

    it('when the events list names merge_request or *, then that webhook receives it; a push-only webhook does not', async () => {
      // `*` also gets the lifecycle actions (CONTRACT §9): the merge is the `merged` one
      const all = await eventually(() => at('/all').find((x) => x.body.event === 'merge_request' && x.body.action === 'merged'));
      const both = await eventually(() => at('/both').find((x) => x.body.event === 'merge_request'));
      expect([all.body.action, both.body.action]).toEqual(['merged', 'merged']);
      // the push-only webhook's records are complete once it has the merge's push of main
      await pushOf('/push', 'refs/heads/main', featureSha);
      const deliveries = await api(gh, 'GET', `${hooks}/${ids.push}/deliveries`, { token: alice.token });
      expect(deliveries.body.map((x: { event: string }) => x.event)).not.toContain('merge_request');
      expect(at('/push').map((x) => x.body.event)).not.toContain('merge_request');
    });

    it('when a merge moves the target, then a push of the target follows with the merger as sender (CONTRACT §9)', async () => {
      const d = await pushOf('/all', 'refs/heads/main', featureSha);
      expect(d.body).toMatchObject({ before: mainSha, after: featureSha, created: false, deleted: false, sender: { username: 'bob' } });
      // a fast-forward writes nothing new: the feature commit came with the earlier push of feature
      expect(d.body.commits).toEqual([]);
    });

    it('when a merge writes a merge commit, then the target\'s push event lists exactly that new commit', async () => {
      const side = await git(work, 'commit-tree', '-p', mainSha, '-m', 'side work', `${mainSha}^{tree}`);
      await git(work, 'push', '-q', 'origin', `${side}:refs/heads/side`);
      const mr = await api(gh, 'POST', '/api/repos/alice/hooks/merge-requests', { token: alice.token, body: { title: 'Side', source_branch: 'side', target_branch: 'main' } });
      const merged = await api(gh, 'POST', `/api/repos/alice/hooks/merge-requests/${mr.body.number}/merge`, { token: alice.token });
      expect([merged.status, merged.body.strategy]).toEqual([200, 'merge-commit']);
      const d = await pushOf('/push', 'refs/heads/main', merged.body.sha);
      expect(d.body).toMatchObject({ before: featureSha, after: merged.body.sha, sender: { username: 'alice' } });
      expect(d.body.commits).toEqual([{ id: merged.body.sha, message: 'Merge branch \'side\' into main\n', author: { name: 'alice', email: 'alice@example.com' }, timestamp: expect.any(String) }]);
    });

    it('when a new branch points at a commit the repository already has, then its push event has no commits (CONTRACT §9: new to the repository)', async () => {
      await git(work, 'push', '-q', 'origin', `${mainSha}:refs/heads/copy`);
      const d = await pushOf('/push', 'refs/heads/copy');
      expect(d.body).toMatchObject({ before: ZERO, after: mainSha, created: true, deleted: false, commits: [] });
    });

    it('when a webhook has no secret or an empty one, then no signature header is sent', async () => {
      const both = await eventually(() => at('/both').find((x) => x.body.event === 'merge_request'));
      const blank = await eventually(() => at('/blank-secret').find((x) => x.body.event === 'merge_request'));
      expect([both.headers['x-hub-signature-256'], blank.headers['x-hub-signature-256']]).toEqual([undefined, undefined]);
    });

    it('when deliveries are listed, then newest first with exactly the CONTRACT §7 fields and the delivery id header', async () => {
      const received = await eventually(() => at('/all').find((x) => x.body.event === 'merge_request'));
      const res = await eventually(async () => {
        const r = await api(gh, 'GET', `${hooks}/${ids.all}/deliveries`, { token: alice.token });
        return r.body.find((x: { id: string; status: string }) => x.id === received.headers['x-githost-delivery'] && x.status === 'delivered') ? r : undefined;
      });
      for (const x of res.body) expect(Object.keys(x).sort()).toEqual(DELIVERY_FIELDS);
      const times = res.body.map((x: { created_at: string }) => Date.parse(x.created_at));
      expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
      expect(res.body.find((x: { id: string }) => x.id === received.headers['x-githost-delivery'])).toMatchObject({ event: 'merge_request', status: 'delivered', response_status: 204 });
    });

    it('when the target answers a 4xx other than 408/429, then the delivery fails at once after one attempt (CONTRACT §7)', async () => {
      const delivery = await eventually(async () => {
        const r = await api(gh, 'GET', `${hooks}/${ids.gone}/deliveries`, { token: alice.token });
        return r.body.find((x: { status: string }) => x.status === 'failed');
      });
      expect(delivery).toMatchObject({ event: 'merge_request', status: 'failed', attempts: 1, response_status: 410 });
      expect(at('/gone').filter((d) => d.headers['x-githost-delivery'] === delivery.id)).toHaveLength(1);
    });

    it('when the target answers 5xx, then the same delivery id is retried up to 6 attempts in all (CONTRACT §7, §9)', async () => {
      const delivery = await eventually(async () => {
        const r = await api(gh, 'GET', `${hooks}/${ids.broken}/deliveries`, { token: alice.token });
        return r.body.find((x: { status: string }) => x.status === 'failed');
      }, 30_000);
      expect(delivery).toMatchObject({ event: 'merge_request', status: 'failed', attempts: 6, response_status: 500 });
      // every attempt carries the same delivery id, and there are exactly six
      const seen = at('/broken').filter((d) => d.headers['x-githost-delivery'] === delivery.id);
      expect(seen).toHaveLength(6);
      expect(new Set(seen.map((d) => d.raw.toString('utf8'))).size).toBe(1);
      const one = await api(gh, 'GET', `${hooks}/${ids.broken}/deliveries/${delivery.id}`, { token: alice.token });
      expect([one.status, one.body.id]).toEqual([200, delivery.id]);
    });

    it('when a tag is pushed, then a push event for refs/tags/<tag> (CONTRACT §9: every ref change)', async () => {
      await git(work, 'push', '-q', 'origin', `${mainSha}:refs/tags/v1`);
      const d = await pushOf('/push', 'refs/tags/v1');
      expect(d.body).toMatchObject({ before: ZERO, after: mainSha, created: true, deleted: false, sender: { username: 'alice' } });
    });

    it('when a reader asks for deliveries, then 400 Write access required', async () => {
      const res = await api(gh, 'GET', `${hooks}/${ids.all}/deliveries`, { token: carol.token });
      expect([res.status, res.body]).toEqual([400, { error: 'Write access required' }]);
    });
  });
});
