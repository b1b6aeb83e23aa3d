import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN_TOKEN, Client, startAccounts, type Harness } from './harness.js';
import { startFakeStorage, type FakeStorage } from './fake-storage.js';
import { rpc } from './rpc.js';

/** Placement (docs/operating.md#adding-a-shard): new repositories go to the shard with the fewest, counted from accounts' table. */
describe('placing repositories on git-storage shards', () => {
  let a: FakeStorage;
  let b: FakeStorage;
  let h: Harness;
  let owner: Client;

  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeStorage(), startFakeStorage()]);
    h = await startAccounts(
      'postgres',
      new Map([
        ['shard-a', a.address],
        ['shard-b', b.address],
      ]),
    );
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'pat', email: 'pat@example.test' })).status).toBe(201);
    owner = new Client(h, (await admin.request('POST', '/api/admin/users/pat/tokens', {})).body.token);
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  const shardOf = async (name: string) => (await rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: true, owner: 'pat', name })).repository!.shard;

  it('when repositories are created one after another, then they alternate between the shards and each shard made only its own', async () => {
    const ids: string[] = [];
    for (const name of ['r1', 'r2', 'r3', 'r4']) {
      const res = await owner.request('POST', '/api/repos', { name });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    expect(await Promise.all(['r1', 'r2', 'r3', 'r4'].map(shardOf))).toEqual(['shard-a', 'shard-b', 'shard-a', 'shard-b']);
    expect(a.created).toEqual([ids[0], ids[2]]);
    expect(b.created).toEqual([ids[1], ids[3]]);
  });

  it('when one shard fails to create, then nothing is recorded and the next creation still counts only real rows', async () => {
    a.failNextCreate();
    expect((await owner.request('POST', '/api/repos', { name: 'r5' })).status).toBe(503);
    const res = await owner.request('POST', '/api/repos', { name: 'r6' });
    expect([res.status, await shardOf('r6')]).toEqual([201, 'shard-a']);
    expect(a.created).toHaveLength(3);
  });
});

describe('a configured default shard', () => {
  let a: FakeStorage;
  let b: FakeStorage;
  let h: Harness;

  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeStorage(), startFakeStorage()]);
    h = await startAccounts(
      'pglite',
      new Map([
        ['default', a.address],
        ['big', b.address],
      ]),
      { defaultShard: 'big' },
    );
  });

  afterAll(async () => {
    await h?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  it('when repositories are created, then every one goes to the default shard', async () => {
    const admin = new Client(h, ADMIN_TOKEN);
    await admin.request('POST', '/api/admin/users', { username: 'quinn', email: 'q@example.test' });
    for (const name of ['one', 'two']) expect((await admin.request('POST', '/api/repos', { name, owner: 'quinn' })).status).toBe(201);
    expect([a.created.length, b.created.length]).toEqual([0, 2]);
  });
});
