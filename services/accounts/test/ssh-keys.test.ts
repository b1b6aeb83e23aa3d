import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { callUnary } from '@githost/grpc';
import { startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import type { accounts } from '@githost/protos';
import { generateSshKey } from '@githost/test-support';
import { ADMIN_TOKEN, Client, SECRET, startAccounts, type Backend, type Harness } from './harness.js';

/** docs/decisions/ssh-keys.md, against the real service and database. */
describe.each<Backend>(['postgres', 'pglite'])('SSH keys and deploy keys on %s', (backend) => {
  let storage: TestStorage;
  let h: Harness;
  let admin: Client;

  const lookup = (fingerprint: string) =>
    callUnary<accounts.LookupSshKeyRequest, accounts.LookupSshKeyResponse__Output>(h.grpc, h.grpc.LookupSshKey, { fingerprint });

  const createUser = async (username: string) => (await admin.createUser(username)).client;

  beforeAll(async () => {
    storage = await startTestStorage({ secret: SECRET });
    h = await startAccounts(backend, storage.grpcAddress);
    admin = new Client(h, ADMIN_TOKEN);
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await storage?.stop();
  });

  it('when a user adds a key, then it is listed with its SHA256 fingerprint and the lookup finds the user until it is deleted', async () => {
    const kim = await createUser('kim');
    const made = await generateSshKey('ed25519', { comment: 'kim@laptop' });
    const added = await kim.request('POST', '/api/user/keys', { key: made.publicKey });
    expect(added).toEqual({ status: 201, body: { id: expect.any(Number), title: 'kim@laptop', key: made.publicKey.replace(/ kim@laptop$/, ''), fingerprint: made.fingerprint, created_at: expect.any(String) } });
    expect(await kim.request('GET', '/api/user/keys')).toEqual({ status: 200, body: [added.body] });
    expect(await kim.request('GET', `/api/user/keys/${added.body.id}`)).toEqual({ status: 200, body: added.body });
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'user', key_id: added.body.id, user: { username: 'kim' } });
    // OpenSSH mode's githost-serve names the key by id.
    expect(await callUnary<accounts.LookupSshKeyRequest, accounts.LookupSshKeyResponse__Output>(h.grpc, h.grpc.LookupSshKey, { key_id: added.body.id })).toMatchObject({ outcome: 'user', key_id: added.body.id, user: { username: 'kim' } });
    await expect(callUnary(h.grpc, h.grpc.LookupSshKey, { fingerprint: made.fingerprint, key_id: added.body.id })).rejects.toMatchObject({ kind: 'validation' });

    expect((await kim.request('DELETE', `/api/user/keys/${added.body.id}`)).status).toBe(204);
    expect(await kim.request('GET', `/api/user/keys/${added.body.id}`)).toEqual({ status: 404, body: { error: 'Key not found' } });
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'not_found' });
  });

  it('when a key is registered anywhere already, then adding it again is 422 and changes nothing', async () => {
    const [lea, max] = [await createUser('lea'), await createUser('max')];
    const made = await generateSshKey('ecdsa', { bits: 256 });
    expect((await lea.request('POST', '/api/user/keys', { title: 'one', key: made.publicKey })).status).toBe(201);
    expect(await max.request('POST', '/api/user/keys', { title: 'two', key: made.publicKey })).toEqual({ status: 422, body: { error: 'Key is already in use' } });
    expect((await max.request('POST', '/api/repos', { name: 'max-repo' })).status).toBe(201);
    expect(await max.request('POST', '/api/repos/max/max-repo/keys', { title: 'deploy', key: made.publicKey })).toEqual({ status: 422, body: { error: 'Key is already in use' } });
    expect(await max.request('GET', '/api/user/keys')).toEqual({ status: 200, body: [] });
  });

  it('when a key is malformed, then it is 400 naming why and nothing is stored', async () => {
    const ned = await createUser('ned');
    const made = await generateSshKey('ed25519');
    expect(await ned.request('POST', '/api/user/keys', { title: 'x', key: made.privateKey })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/private key/) } });
    expect(await ned.request('POST', '/api/user/keys', { title: 'x' })).toEqual({ status: 400, body: { error: 'key is required' } });
    expect(await ned.request('POST', '/api/user/keys', { title: 7, key: made.publicKey })).toEqual({ status: 400, body: { error: 'title must be a string' } });
    expect(await ned.request('GET', '/api/user/keys/abc')).toEqual({ status: 404, body: { error: 'Key not found' } });
    expect(await ned.request('GET', '/api/user/keys')).toEqual({ status: 200, body: [] });
  });

  it('when a user is suspended, then the lookup refuses their key; deleting the user deletes it', async () => {
    const sal = await createUser('sal');
    const made = await generateSshKey('ed25519');
    expect((await sal.request('POST', '/api/user/keys', { key: made.publicKey })).status).toBe(201);
    expect((await admin.request('PATCH', '/api/admin/users/sal', { suspended: true })).status).toBe(200);
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'refused' });
    expect((await admin.request('DELETE', '/api/admin/users/sal')).status).toBe(204);
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'not_found' });
  });

  it('when a repository\'s owner is suspended, then the lookup refuses its deploy keys until the owner is reinstated', async () => {
    const owner = await createUser('dk-suspended');
    expect((await owner.request('POST', '/api/repos', { name: 'dks' })).status).toBe(201);
    const made = await generateSshKey('ed25519');
    expect((await owner.request('POST', '/api/repos/dk-suspended/dks/keys', { title: 'ci', key: made.publicKey })).status).toBe(201);
    expect((await admin.request('PATCH', '/api/admin/users/dk-suspended', { suspended: true })).status).toBe(200);
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'refused' });
    expect((await admin.request('PATCH', '/api/admin/users/dk-suspended', { suspended: false })).status).toBe(200);
    expect(await lookup(made.fingerprint)).toMatchObject({ outcome: 'deploy_key', repository: { owner: 'dk-suspended', name: 'dks' } });
  });

  it('when a site admin lists and removes a user\'s keys, then they go; a user who is not an admin gets 403', async () => {
    const [ida, other] = [await createUser('ida'), await createUser('ida-other')];
    const made = await generateSshKey('ed25519');
    const added = await ida.request('POST', '/api/user/keys', { title: 'work', key: made.publicKey });
    expect(await admin.request('GET', '/api/admin/users/ida/keys')).toEqual({ status: 200, body: [added.body] });
    expect(await other.request('GET', '/api/admin/users/ida/keys')).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await other.request('DELETE', `/api/user/keys/${added.body.id}`)).toEqual({ status: 404, body: { error: 'Key not found' } });
    expect((await admin.request('DELETE', `/api/admin/users/ida/keys/${added.body.id}`)).status).toBe(204);
    expect(await ida.request('GET', '/api/user/keys')).toEqual({ status: 200, body: [] });
  });

  it('when a repository admin adds a deploy key, then it is read-only by default, a writer gets 403, and deleting the repository deletes the key', async () => {
    const [own, writer] = [await createUser('dk-owner'), await createUser('dk-writer')];
    expect((await own.request('POST', '/api/repos', { name: 'dk' })).status).toBe(201);
    expect((await own.request('PUT', '/api/repos/dk-owner/dk/collaborators/dk-writer', { permission: 'write' })).status).toBe(204);
    const [ro, rw] = [await generateSshKey('ed25519'), await generateSshKey('rsa', { bits: 2048 })];
    const first = await own.request('POST', '/api/repos/dk-owner/dk/keys', { title: 'ci', key: ro.publicKey });
    expect(first).toEqual({ status: 201, body: { id: expect.any(Number), title: 'ci', key: expect.any(String), fingerprint: ro.fingerprint, read_only: true, created_at: expect.any(String) } });
    const second = await own.request('POST', '/api/repos/dk-owner/dk/keys', { title: 'deployer', key: rw.publicKey, read_only: false });
    expect(second.body.read_only).toBe(false);
    expect(await own.request('GET', '/api/repos/dk-owner/dk/keys')).toEqual({ status: 200, body: [first.body, second.body] });
    expect(await writer.request('GET', '/api/repos/dk-owner/dk/keys')).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await writer.request('POST', '/api/repos/dk-owner/dk/keys', { title: 'x', key: (await generateSshKey('ed25519')).publicKey })).toEqual({ status: 403, body: { error: 'Forbidden' } });
    expect(await lookup(rw.fingerprint)).toMatchObject({ outcome: 'deploy_key', read_only: false, repository: { owner: 'dk-owner', name: 'dk' } });

    expect((await own.request('DELETE', `/api/repos/dk-owner/dk/keys/${first.body.id}`)).status).toBe(204);
    expect(await lookup(ro.fingerprint)).toMatchObject({ outcome: 'not_found' });
    expect((await own.request('DELETE', '/api/repos/dk-owner/dk')).status).toBe(204);
    expect(await lookup(rw.fingerprint)).toMatchObject({ outcome: 'not_found' });
  });

  it('when the lookup is given something that is no SHA256 fingerprint, then it is INVALID_ARGUMENT', async () => {
    await expect(lookup('MD5:aa:bb')).rejects.toMatchObject({ kind: 'validation' });
  });
});
