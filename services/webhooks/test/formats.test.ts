import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@githost/bus';
import { createTestDatabase, migrate, openDatabase, type Database } from '@githost/db';
import { MIGRATIONS } from '../src/db/migrations.js';
import { PgDeliveryStore } from '../src/db/delivery-store.js';
import { PgWebhookStore } from '../src/db/webhook-store.js';
import { deliveryIdFor } from '../src/domain/delivery-id.js';
import type { ClaimedDelivery } from '../src/domain/types.js';

/** Webhook types in the store (docs/decisions/webhook-formats.md): what an event becomes per type, and an event taken up again. */
describe('webhook formats in the store (real Postgres)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  let deliveries: PgDeliveryStore;
  let webhooks: PgWebhookStore;
  beforeAll(async () => {
    const testDb = await createTestDatabase('githost_webhooks_formats');
    drop = testDb.drop;
    db = await openDatabase({ url: testDb.url, schema: 'webhooks' });
    await migrate(db, MIGRATIONS);
    deliveries = new PgDeliveryStore(db, { publicUrl: 'https://git.example.com' });
    webhooks = new PgWebhookStore(db);
  });
  afterAll(async () => {
    await db.close();
    await drop();
  });

  const branchCreated = (repoId: string): EventEnvelope => ({
    id: randomUUID(),
    kind: 'push',
    occurred_at: new Date(Date.now() + 1000).toISOString(),
    repository: { id: repoId, owner: 'alice', name: 'demo' },
    payload: { event: 'push', ref: 'refs/heads/topic', before: '0'.repeat(40), after: 'c'.repeat(40), created: true, deleted: false, forced: false, repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' }, sender: { username: 'bob' }, commits: [] },
  });
  const delivered = (claim: ClaimedDelivery) => ({ claim, result: { status: 'delivered' as const, responseStatus: 200, responseBody: 'ok', error: null, durationMs: 1 } });

  it('when a webhook is created without a type, then it is githost; with one, it is kept', async () => {
    const repoId = randomUUID();
    expect((await webhooks.create(repoId, { url: 'http://127.0.0.1:9/a', secret: null, events: 'push' })).type).toBe('githost');
    expect((await webhooks.create(repoId, { url: 'http://127.0.0.1:9/b', secret: null, events: 'push', type: 'slack' })).type).toBe('slack');
    expect((await webhooks.list(repoId)).map((w) => w.type)).toEqual(['githost', 'slack']);
  });

  it('when a branch is created, then a githost webhook gets its push, a gitea one create and push, a slack one a chat line, each with its type', async () => {
    const repoId = randomUUID();
    const plain = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/githost', secret: null, events: 'push' });
    const gitea = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/gitea', secret: 's', events: 'push', type: 'gitea' });
    const slack = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/slack', secret: null, events: 'push', type: 'slack' });
    const event = branchCreated(repoId);
    const [claims] = await deliveries.firstAttempts([event]);
    const byHook = (id: string) => claims!.filter((c) => c.webhook_id === id).map((c) => [c.type, c.event, c.first?.event_id, c.id]);
    expect(byHook(plain.id)).toEqual([['githost', 'push', event.id, deliveryIdFor(plain.id, event.id)]]);
    expect(byHook(gitea.id)).toEqual([
      ['gitea', 'create', `${event.id}:create`, deliveryIdFor(gitea.id, `${event.id}:create`)],
      ['gitea', 'push', event.id, deliveryIdFor(gitea.id, event.id)],
    ]);
    expect(byHook(slack.id)).toEqual([['slack', 'push', event.id, deliveryIdFor(slack.id, event.id)]]);
    expect(claims!.find((c) => c.webhook_id === plain.id)!.payload).toBe(event.payload);
    expect(claims!.find((c) => c.webhook_id === slack.id)!.payload).toEqual({ text: '[<https://git.example.com/alice/demo|alice/demo>] branch <https://git.example.com/alice/demo/-/tree/topic|topic> created by bob' });
  });

  it('when an event comes again after only some of its deliveries were recorded, then only the others are sent; once all are, nothing', async () => {
    const repoId = randomUUID();
    const gitea = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/gitea', secret: null, events: 'push', type: 'gitea' });
    const event = branchCreated(repoId);
    const [first] = await deliveries.firstAttempts([event]);
    const create = first!.find((c) => c.event === 'create')!;
    expect(await deliveries.recordAttempts([delivered(create)])).toEqual([true]);
    const [again] = await deliveries.firstAttempts([event]);
    expect(again!.map((c) => [c.event, c.id])).toEqual([['push', deliveryIdFor(gitea.id, event.id)]]);
    expect(await deliveries.recordAttempts([delivered(again![0]!)])).toEqual([true]);
    expect(await deliveries.firstAttempts([event])).toEqual([[]]);
    const list = await deliveries.listForWebhook(gitea.id, 10);
    expect(list.map((d) => [d.event, d.status]).sort()).toEqual([['create', 'delivered'], ['push', 'delivered']]);
    // what was sent is what the delivery shows, and a retry would send the same bytes
    expect((list.find((d) => d.event === 'create')!.payload as { ref: string; ref_type: string }).ref).toBe('topic');
  });

  it('when a gitea delivery is redelivered, then the claim carries its type, so the worker signs it the Gitea way', async () => {
    const repoId = randomUUID();
    const gitea = await webhooks.create(repoId, { url: 'http://127.0.0.1:9/gitea', secret: 's', events: 'push', type: 'gitea' });
    const [claims] = await deliveries.firstAttempts([branchCreated(repoId)]);
    await deliveries.recordAttempts(claims!.map(delivered));
    const push = claims!.find((c) => c.event === 'push')!;
    expect(await deliveries.redeliver(gitea.id, push.id)).not.toBeNull();
    const leased = (await deliveries.claimDue(100, 60_000)).filter((c) => c.webhook_id === gitea.id);
    expect(leased.map((c) => [c.id, c.type, c.event, c.secret])).toEqual([[push.id, 'gitea', 'push', 's']]);
    expect(leased[0]!.payload).toEqual(push.payload);
  });
});
