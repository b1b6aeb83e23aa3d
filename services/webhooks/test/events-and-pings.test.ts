import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, startReceiver, type Receiver } from '@githost/test-support';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Database } from '@githost/db';
import { deliveriesOf, hooksPath, settledDeliveries, startHarness, type Harness } from './support/service.js';

const repository = { owner: 'alice', name: 'project', full_name: 'alice/project' };
const mergeRequestEvent = (action: string) => ({ event: 'merge_request', action, repository, sender: { username: 'bob' }, merge_request: { number: 1, title: 'T', state: action === 'merged' ? 'merged' : 'open' } });

describe('event selection, pings and repository purge (real Postgres)', () => {
  let h: Harness;
  let receiver: Receiver;
  let db: Database;

  const hookIn = async (repoId: string, events: string, secret?: string): Promise<string> => {
    const res = await h.call('POST', hooksPath, { url: receiver.url, events, ...(secret ? { secret } : {}) }, { repoId });
    if (res.status !== 201) throw new Error(`create webhook: ${res.status} ${res.text}`);
    return (res.body as { id: string }).id;
  };

  beforeAll(async () => {
    h = await startHarness();
    receiver = await startReceiver({ secret: 'ping-secret' });
    db = await openDatabase({ url: h.config.databaseUrl, schema: 'webhooks' });
  });
  afterAll(async () => {
    await db.close();
    await h.close();
    await receiver.close();
  });

  describe('selection by name (CONTRACT §9)', () => {
    it('when every kind and lifecycle action happens, then each webhook gets exactly the events its names select, once each', async () => {
      const repoId = randomUUID();
      const hooks = {
        seed: await hookIn(repoId, 'merge_request'),
        allActions: await hookIn(repoId, 'merge_request.*'),
        seedTwice: await hookIn(repoId, 'merge_request,merge_request.merged'),
        everything: await hookIn(repoId, '*'),
        openedAndStatus: await hookIn(repoId, 'merge_request.opened,status'),
        reviews: await hookIn(repoId, 'merge_request_review'),
        comments: await hookIn(repoId, 'merge_request_comment'),
        push: await hookIn(repoId, 'push'),
      };
      for (const action of ['opened', 'edited', 'closed', 'reopened', 'synchronize', 'merged']) await h.publish('merge_request', mergeRequestEvent(action), { repoId });
      await h.publish('merge_request_review', { event: 'merge_request_review', action: 'submitted', repository, sender: { username: 'carol' } }, { repoId });
      await h.publish('merge_request_comment', { event: 'merge_request_comment', action: 'created', repository, sender: { username: 'carol' } }, { repoId });
      await h.publish('status', { event: 'status', sha: 'a'.repeat(40), state: 'success', context: 'ci', repository, sender: { username: 'ci' } }, { repoId });
      await h.publish('push', { event: 'push', ref: 'refs/heads/main', repository, sender: { username: 'alice' } }, { repoId });
      // Every event's deliveries are written in one transaction: once `*` has all ten, all are recorded.
      await eventually(async () => ((await deliveriesOf(h, hooks.everything, repoId)).length === 10 ? true : undefined));
      const events = async (id: string) => (await deliveriesOf(h, id, repoId)).map((d) => d.event).sort();
      expect(await events(hooks.seed)).toEqual(['merge_request']);
      expect(await events(hooks.seedTwice)).toEqual(['merge_request']);
      expect(await events(hooks.allActions)).toEqual(Array(6).fill('merge_request'));
      expect(await events(hooks.everything)).toEqual([...Array(6).fill('merge_request'), 'merge_request_comment', 'merge_request_review', 'push', 'status']);
      expect(await events(hooks.openedAndStatus)).toEqual(['merge_request', 'status']);
      expect(await events(hooks.reviews)).toEqual(['merge_request_review']);
      expect(await events(hooks.comments)).toEqual(['merge_request_comment']);
      expect(await events(hooks.push)).toEqual(['push']);
      // the seed's hook got the merge, with the seed's payload
      const [seedDelivery] = await deliveriesOf(h, hooks.seed, repoId);
      const detail = (await h.call('GET', `${hooksPath}/${hooks.seed}/deliveries/${seedDelivery!.id}`, undefined, { repoId })).body as { payload: unknown };
      expect(detail.payload).toEqual(mergeRequestEvent('merged'));
    });

    it('when events names something else, then 400 Unknown event and nothing is created', async () => {
      const repoId = randomUUID();
      for (const name of ['merge_request.deleted', 'ping', 'repository_deleted', 'merge_request.']) {
        const res = await h.call('POST', hooksPath, { url: receiver.url, events: `push,${name}` }, { repoId });
        expect([res.status, res.body]).toEqual([400, { error: `Unknown event: ${name}` }]);
      }
      expect((await h.call('GET', hooksPath, undefined, { repoId })).body).toEqual([]);
    });
  });

  describe('POST .../webhooks/{id}/pings', () => {
    it('when a writer pings a webhook whose events do not name ping, then 204, one ping delivery recorded and sent, signed, with X-Githost-Event ping', async () => {
      const repoId = randomUUID();
      const hookId = await hookIn(repoId, 'push', 'ping-secret');
      // CONTRACT §9: creating a webhook sends nothing
      expect(await deliveriesOf(h, hookId, repoId)).toEqual([]);
      const before = receiver.received.length;
      const res = await h.call('POST', `${hooksPath}/${hookId}/pings`, undefined, { repoId });
      expect([res.status, res.text]).toEqual([204, '']);
      const [delivery] = await settledDeliveries(h, hookId, 1, repoId);
      expect(delivery).toMatchObject({ event: 'ping', status: 'delivered', attempts: 1, response_status: 200 });
      const got = receiver.received.slice(before).find((r) => r.headers['x-githost-delivery'] === delivery!.id)!;
      expect(got.headers['x-githost-event']).toBe('ping');
      expect(got.signatureValid).toBe(true);
      expect(JSON.parse(got.text)).toEqual({ event: 'ping', hook_id: hookId, repository, sender: { username: 'alice' } });
    });

    it('when the webhook is unknown, malformed or another repository’s, then 404 Webhook not found and nothing is recorded', async () => {
      const repoId = randomUUID();
      const hookId = await hookIn(repoId, 'push');
      for (const [id, caller] of [[randomUUID(), { repoId }], ['not-a-uuid', { repoId }], [hookId, { repoId: randomUUID() }]] as const) {
        const res = await h.call('POST', `${hooksPath}/${id}/pings`, undefined, caller);
        expect([res.status, res.body]).toEqual([404, { error: 'Webhook not found' }]);
      }
      expect(await deliveriesOf(h, hookId, repoId)).toEqual([]);
    });

    it('when the caller may only read, or is anonymous, then the seed’s webhook access rules answer', async () => {
      const repoId = randomUUID();
      const hookId = await hookIn(repoId, 'push');
      expect(await h.call('POST', `${hooksPath}/${hookId}/pings`, undefined, { repoId, permission: 'read' })).toMatchObject({ status: 400, body: { error: 'Write access required' } });
      expect((await h.call('POST', `${hooksPath}/${hookId}/pings`, undefined, { repoId, anonymous: true })).status).toBe(401);
      expect(await h.call('POST', `${hooksPath}/${hookId}/pings`, undefined, { repoId, private: true, permission: 'none' })).toMatchObject({ status: 404, body: { error: 'Repository not found' } });
      expect(await deliveriesOf(h, hookId, repoId)).toEqual([]);
    });
  });

  describe('repository_deleted', () => {
    const countFor = async (repoId: string) => {
      const { rows } = await db.query<{ hooks: string; deliveries: string; attempts: string }>(
        `SELECT (SELECT count(*) FROM webhooks WHERE repo_id = $1) AS hooks,
                (SELECT count(*) FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.repo_id = $1) AS deliveries,
                (SELECT count(*) FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN webhooks w ON w.id = d.webhook_id WHERE w.repo_id = $1) AS attempts`,
        [repoId],
      );
      return { hooks: Number(rows[0]!.hooks), deliveries: Number(rows[0]!.deliveries), attempts: Number(rows[0]!.attempts) };
    };

    it('when a repository is deleted, then its webhooks, deliveries and attempts go, other repositories keep theirs, and the event coming again changes nothing', async () => {
      const gone = randomUUID();
      const kept = randomUUID();
      const goneHooks = [await hookIn(gone, 'push'), await hookIn(gone, '*')];
      const keptHook = await hookIn(kept, 'push');
      await h.publish('push', { event: 'push', ref: 'refs/heads/main' }, { repoId: gone });
      await h.publish('push', { event: 'push', ref: 'refs/heads/main' }, { repoId: kept });
      for (const id of goneHooks) await settledDeliveries(h, id, 1, gone);
      await settledDeliveries(h, keptHook, 1, kept);
      expect(await countFor(gone)).toEqual({ hooks: 2, deliveries: 2, attempts: 2 });
      const orphanAttempts = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM delivery_attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)')).rows[0]!.n);

      const deleted = { event: 'repository_deleted', repository, sender: { username: 'alice' } };
      await h.publish('repository_deleted', deleted, { repoId: gone });
      await eventually(async () => ((await countFor(gone)).hooks === 0 ? true : undefined));
      expect(await countFor(gone)).toEqual({ hooks: 0, deliveries: 0, attempts: 0 });
      expect(await orphanAttempts()).toBe(0);
      expect((await h.call('GET', hooksPath, undefined, { repoId: gone })).body).toEqual([]);
      expect(await countFor(kept)).toEqual({ hooks: 1, deliveries: 1, attempts: 1 });

      // Again (at-least-once bus): nothing left to delete, nothing else touched; the queue moves on.
      await h.publish('repository_deleted', deleted, { repoId: gone });
      await h.publish('push', { event: 'push', ref: 'refs/heads/next' }, { repoId: kept });
      await settledDeliveries(h, keptHook, 2, kept);
      expect(await countFor(kept)).toEqual({ hooks: 1, deliveries: 2, attempts: 2 });
      expect((await deliveriesOf(h, keptHook, kept)).map((d) => d.event)).toEqual(['push', 'push']);
    });
  });
});
