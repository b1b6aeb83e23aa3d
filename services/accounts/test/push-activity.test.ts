import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { createEventBus, type EventBus } from '@githost/bus';
import { TEST_AMQP_URL } from '@githost/bus/testing';
import { openDatabase } from '@githost/db';
import { createLogger } from '@githost/logging';
import { waitFor } from '@githost/test-support';
import { ADMIN_TOKEN, Client, startAccounts, type Harness } from './harness.js';
import { startFakeStorage, type FakeStorage } from './fake-storage.js';

/** docs/decisions/explore-lists.md: the Explore list is newest push first, kept from `push` events. */
describe('the Explore order from push events, over real Postgres and RabbitMQ', () => {
  let storage: FakeStorage;
  let h: Harness;
  let bus: EventBus;
  let owner: Client;
  const ids: Record<string, string> = {};

  const order = async () => ((await new Client(h, null).request('GET', '/api/repos')).body as { name: string }[]).map((r) => r.name);
  const push = (name: string, occurredAt: Date) =>
    bus.publish({ id: randomUUID(), kind: 'push', occurred_at: occurredAt.toISOString(), repository: { id: ids[name]!, owner: 'olga', name }, payload: {} });

  beforeAll(async () => {
    storage = await startFakeStorage();
    h = await startAccounts('postgres', storage.address, { rabbitmq: true });
    bus = createEventBus({ amqpUrl: TEST_AMQP_URL, exchange: h.config.eventsExchange, logger: createLogger('bus', 'silent') });
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'olga', email: 'olga@example.test' })).status).toBe(201);
    owner = new Client(h, (await admin.request('POST', '/api/admin/users/olga/tokens', {})).body.token);
    for (const name of ['first', 'second', 'third']) ids[name] = (await owner.request('POST', '/api/repos', { name })).body.id;
  });

  afterAll(async () => {
    await bus?.close();
    await h?.close();
    await storage?.close();
  });

  it('when nothing was pushed, then the newest created comes first', async () => {
    expect(await order()).toEqual(['third', 'second', 'first']);
  });

  it('when the repository created first is pushed, then it moves to the top', async () => {
    await push('first', new Date());
    await waitFor(async () => (await order())[0] === 'first', 'the pushed repository on top');
    expect(await order()).toEqual(['first', 'third', 'second']);
  });

  it('when an older push event comes again after a newer one, then the repository keeps its later push', async () => {
    // A redelivered or late event of the first repository, older than every repository here:
    // applied as is, it would drop below the never pushed third.
    await push('first', new Date(Date.UTC(2000, 0, 1)));
    // A later event, to know the broker delivered the one before it.
    await push('second', new Date());
    await waitFor(async () => (await order())[0] === 'second', 'the later push on top');
    expect(await order()).toEqual(['second', 'first', 'third']);
  });

  it('when an event names no repository or no time, or a deleted repository, then it is dropped and nothing changes', async () => {
    await bus.publish({ id: randomUUID(), kind: 'push', occurred_at: 'not a time', repository: { id: ids.third!, owner: 'olga', name: 'third' }, payload: {} });
    await bus.publish({ id: randomUUID(), kind: 'push', occurred_at: new Date().toISOString(), repository: { id: 'no-such-repository', owner: 'olga', name: 'gone' }, payload: {} });
    await push('first', new Date());
    await waitFor(async () => (await order())[0] === 'first', 'the later push on top');
    expect(await order()).toEqual(['first', 'second', 'third']);
  });

  it('when many push events of one repository come at once (a push of many refs), then it keeps the latest of them', async () => {
    const latest = new Date(Date.now() + 60_000);
    const times = Array.from({ length: 300 }, (_, i) => (i === 137 ? latest : new Date(Date.now() - i * 1000)));
    await Promise.all(times.map((t) => push('third', t)));
    const db = await openDatabase({ url: h.databaseUrl, schema: 'accounts', poolSize: 1 });
    try {
      const pushedAt = async () => (await db.query<{ pushed_at: Date }>('SELECT pushed_at FROM repositories WHERE id = $1', [ids.third])).rows[0]?.pushed_at?.getTime();
      await waitFor(async () => (await pushedAt()) === latest.getTime(), 'the latest push time kept');
      expect(await order()).toEqual(['third', 'first', 'second']);
    } finally {
      await db.close();
    }
  });

  it('when the list is read, then Postgres walks the activity index rather than sorting every row', async () => {
    const db = await openDatabase({ url: h.databaseUrl, schema: 'accounts', poolSize: 1 });
    try {
      await db.query('SET enable_seqscan = off');
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT id FROM repositories r ORDER BY coalesce(r.pushed_at, r.created_at) DESC, r.id LIMIT 30',
      );
      expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('repositories_activity_idx');
    } finally {
      await db.close();
    }
  });
});
