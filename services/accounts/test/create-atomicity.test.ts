import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN_TOKEN, Client, startAccounts, type Backend, type Harness } from './harness.js';
import { startFakeStorage, type FakeStorage } from './fake-storage.js';
import { rpc } from './rpc.js';

/**
 * Repository creation is all or nothing (CONTRACT §4: nothing half-written). A stand-in
 * git-storage that can be told to fail drives the failures the real one cannot be made to show.
 */
describe.each<Backend>(['postgres', 'pglite'])('repository creation on %s when git-storage fails', (backend) => {
  let storage: FakeStorage;
  let h: Harness;
  let owner: Client;

  beforeAll(async () => {
    storage = await startFakeStorage();
    h = await startAccounts(backend, storage.address);
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'olga', email: 'olga@example.test' })).status).toBe(201);
    owner = new Client(h, (await admin.request('POST', '/api/admin/users/olga/tokens', {})).body.token);
  });

  afterAll(async () => {
    await h?.close();
    await storage?.close();
  });

  it('when CreateRepository fails, then it answers 503, no row remains and the name can be used later', async () => {
    storage.failNextCreate();
    expect(await owner.request('POST', '/api/repos', { name: 'flaky' })).toEqual({ status: 503, body: { error: 'upstream unavailable: disk full' } });
    await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: true, owner: 'olga', name: 'flaky' })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
    expect(storage.removed).toEqual([]);
    const retry = await owner.request('POST', '/api/repos', { name: 'flaky' });
    expect(retry.status).toBe(201);
    expect(storage.created).toEqual([retry.body.id]);
  });

  it('when git-storage answers ALREADY_EXISTS, then it answers 409 and no row remains', async () => {
    const { conflict } = await import('@githost/errors');
    storage.failNextCreate(conflict('Repository already exists on disk'));
    expect(await owner.request('POST', '/api/repos', { name: 'clash' })).toEqual({ status: 409, body: { error: 'Repository already exists on disk' } });
    await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: true, owner: 'olga', name: 'clash' })).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('when the name is taken, then git-storage is never called', async () => {
    const before = storage.created.length;
    expect((await owner.request('POST', '/api/repos', { name: 'FLAKY' })).status).toBe(409);
    expect(storage.created.length).toBe(before);
  });
});

describe('repository creation when git-storage is unreachable', () => {
  let h: Harness;

  beforeAll(async () => {
    const gone = await startFakeStorage();
    const address = gone.address;
    await gone.close();
    h = await startAccounts('pglite', address);
  });

  afterAll(async () => {
    await h?.close();
  });

  it('when the storage address answers nothing, then it answers 503, no row remains and /readyz is 503', async () => {
    const admin = new Client(h, ADMIN_TOKEN);
    expect((await admin.request('POST', '/api/admin/users', { username: 'pat', email: 'pat@example.test' })).status).toBe(201);
    const res = await admin.request('POST', '/api/repos', { name: 'orphan', owner: 'pat' });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/^upstream unavailable/);
    await expect(rpc(h.grpc).authorize({ user_id: '', bootstrap_admin: true, owner: 'pat', name: 'orphan' })).rejects.toMatchObject({ kind: 'not_found' });
    const ready = await fetch(`${h.base}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([503, { status: 'unavailable', failing: ['git-storage'] }]);
  });
});
