import { beforeEach, describe, expect, it } from '@jest/globals';
import type { RepoContext } from '@githost/identity';
import { MemoryDeliveries, MemoryWebhooks } from '../../test/support/in-memory.js';
import type { Requester } from './access.js';
import { createWebhook, deleteWebhook, getDelivery, listDeliveries, listWebhooks, pingOnRequest, redeliver, type WebhookPorts } from './webhooks.js';

const repo: RepoContext = { id: 'r1', owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission: 'write', owner_id: 'u-alice' };
const alice: Requester = { username: 'alice', repo, requestId: 'req-1' };
const UNKNOWN = '1c1d8f6e-0000-4000-8000-000000000000';
const rejection = (p: Promise<unknown>) => p.then(() => null, (e: { kind: string; message: string }) => ({ kind: e.kind, message: e.message }));

let webhooks: MemoryWebhooks;
let deliveries: MemoryDeliveries;
let ports: WebhookPorts;

beforeEach(() => {
  webhooks = new MemoryWebhooks();
  deliveries = new MemoryDeliveries();
  ports = { webhooks, deliveries };
});

describe('access (seed §4 webhooks rule 1, seed §7, CONTRACT §3)', () => {
  it('when anonymous, then unauthenticated and nothing is stored', async () => {
    expect(await rejection(createWebhook(ports, { username: null, repo }, { url: 'http://example.com/h' }))).toEqual({ kind: 'unauthenticated', message: 'Authentication required' });
    expect(webhooks.hooks).toEqual([]);
  });

  it('when the caller can only read, then `Write access required` (a validation error)', async () => {
    expect(await rejection(listWebhooks(ports, { ...alice, repo: { ...repo, permission: 'read' } }))).toEqual({ kind: 'validation', message: 'Write access required' });
  });

  it('when the repository is private and the caller cannot read it, then `Repository not found`', async () => {
    expect(await rejection(listWebhooks(ports, { ...alice, repo: { ...repo, private: true, permission: 'none' } }))).toEqual({ kind: 'not_found', message: 'Repository not found' });
  });
});

describe('webhooks', () => {
  it('when created, then listed for its repository only, with the defaults of seed §4 rule 3', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    expect(hook).toMatchObject({ repo_id: 'r1', url: 'http://example.com/h', secret: null, events: 'push' });
    expect((await listWebhooks(ports, alice)).map((h) => h.id)).toEqual([hook.id]);
    expect(await listWebhooks(ports, { ...alice, repo: { ...repo, id: 'r2' } })).toEqual([]);
  });

  it('when deleting an unknown, malformed or another repository’s id, then nothing goes and no error', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    await deleteWebhook(ports, alice, UNKNOWN);
    await deleteWebhook(ports, alice, 'not-a-uuid');
    await deleteWebhook(ports, { ...alice, repo: { ...repo, id: 'r2' } }, hook.id);
    expect(webhooks.hooks.map((h) => h.id)).toEqual([hook.id]);
    await deleteWebhook(ports, alice, hook.id);
    expect(webhooks.hooks).toEqual([]);
  });

  it('when pinged, then one ping delivery is recorded with the requester as sender', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    const id = await pingOnRequest(ports, alice, hook.id);
    expect(deliveries.deliveries).toEqual([expect.objectContaining({ id, webhook_id: hook.id, event: 'ping', payload: expect.objectContaining({ sender: { username: 'alice' } }) })]);
  });
});

describe('deliveries (CONTRACT §7, §9)', () => {
  it('when listing, then newest first and `limit` clamped to 1-100 (default 50)', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    for (let i = 0; i < 120; i++) deliveries.add({ webhook_id: hook.id, event: 'push' });
    const newest = deliveries.deliveries.at(-1)!.id;
    expect((await listDeliveries(ports, alice, hook.id, undefined)).length).toBe(50);
    expect((await listDeliveries(ports, alice, hook.id, '500')).length).toBe(100);
    expect((await listDeliveries(ports, alice, hook.id, '0')).length).toBe(50);
    expect((await listDeliveries(ports, alice, hook.id, '-3')).length).toBe(50);
    expect((await listDeliveries(ports, alice, hook.id, '2')).map((d) => d.id)[0]).toBe(newest);
  });

  it('when the webhook belongs to another repository, then `Webhook not found`', async () => {
    const hook = await createWebhook(ports, { ...alice, repo: { ...repo, id: 'r2' } }, { url: 'http://example.com/h' });
    expect(await rejection(listDeliveries(ports, alice, hook.id, undefined))).toEqual({ kind: 'not_found', message: 'Webhook not found' });
  });

  it('when the delivery is another webhook’s or malformed, then `Delivery not found`', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    const other = await createWebhook(ports, alice, { url: 'http://example.com/o' });
    const theirs = deliveries.add({ webhook_id: other.id, event: 'push', status: 'delivered' });
    for (const id of [theirs.id, 'x']) {
      expect(await rejection(getDelivery(ports, alice, hook.id, id))).toEqual({ kind: 'not_found', message: 'Delivery not found' });
    }
  });

  it('when a finished delivery is redelivered, then it is pending again under the same id; a pending one is a conflict', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    const done = deliveries.add({ webhook_id: hook.id, event: 'push', status: 'failed', attempts: 6 });
    expect(await redeliver(ports, alice, hook.id, done.id)).toMatchObject({ id: done.id, status: 'pending' });
    expect(await rejection(redeliver(ports, alice, hook.id, done.id))).toEqual({ kind: 'conflict', message: 'Delivery is still pending' });
  });

  it('when a delivery is read, then its attempts come with it', async () => {
    const hook = await createWebhook(ports, alice, { url: 'http://example.com/h' });
    const d = deliveries.add({ webhook_id: hook.id, event: 'push', status: 'delivered', attempts: 1 });
    const attempt = { number: 1, status: 'succeeded' as const, error: null, duration_ms: 3, response_status: 200, response_body: 'ok', created_at: new Date() };
    deliveries.attemptLog.set(d.id, [attempt]);
    expect(await getDelivery(ports, alice, hook.id, d.id)).toEqual({ delivery: d, attempts: [attempt] });
  });
});
