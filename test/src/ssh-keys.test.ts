import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DeployKey, SshKey } from '@githost/api-types';
import { generateSshKey } from '@githost/test-support';
import { addCollaborator, api, createRepo, createUser, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/** docs/decisions/ssh-keys.md through the gateway: a user's SSH keys, a site admin's view, and deploy keys. */
describe('SSH keys and deploy keys', () => {
  let gh: TestGithost;
  let root: TestUser;

  beforeAll(async () => {
    gh = await startTestGithost();
    root = await createUser(gh, 'root', { admin: true });
  }, 120_000);

  afterAll(async () => {
    await gh?.stop();
  });

  it('when a user adds, lists, gets and deletes a key, then each answers as GitHub does with the fingerprint ssh-keygen prints', async () => {
    const ana = await createUser(gh, 'ana');
    const made = await generateSshKey('ed25519', { comment: 'ana@laptop' });
    const added = await api<SshKey>(gh, 'POST', '/api/user/keys', { token: ana.token, body: { title: 'Laptop', key: made.publicKey } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.any(Number), title: 'Laptop', key: made.publicKey.replace(' ana@laptop', ''), fingerprint: made.fingerprint, created_at: expect.any(String) });
    expect((await api(gh, 'GET', '/api/user/keys', { token: ana.token })).body).toEqual([added.body]);
    expect((await api(gh, 'GET', `/api/user/keys/${added.body.id}`, { token: ana.token })).body).toEqual(added.body);
    expect((await api(gh, 'DELETE', `/api/user/keys/${added.body.id}`, { token: ana.token })).status).toBe(204);
    expect(await api(gh, 'GET', `/api/user/keys/${added.body.id}`, { token: ana.token })).toMatchObject({ status: 404, body: { error: 'Key not found' } });
    expect((await api(gh, 'GET', '/api/user/keys', { token: ana.token })).body).toEqual([]);
    expect((await api(gh, 'GET', '/api/user/keys')).status).toBe(401);
  });

  it('when a key is already registered to another user, then adding it is 422 `Key is already in use`', async () => {
    const [bo, cy] = [await createUser(gh, 'bo'), await createUser(gh, 'cy')];
    const made = await generateSshKey('rsa', { bits: 2048 });
    expect((await api(gh, 'POST', '/api/user/keys', { token: bo.token, body: { title: 'bo', key: made.publicKey } })).status).toBe(201);
    expect(await api(gh, 'POST', '/api/user/keys', { token: cy.token, body: { title: 'cy', key: made.publicKey } })).toMatchObject({ status: 422, body: { error: 'Key is already in use' } });
    expect((await api(gh, 'GET', '/api/user/keys', { token: cy.token })).body).toEqual([]);
  });

  it('when a key is malformed, then it is 400 naming why', async () => {
    const dee = await createUser(gh, 'dee');
    const made = await generateSshKey('rsa', { bits: 1024 });
    expect(await api(gh, 'POST', '/api/user/keys', { token: dee.token, body: { title: 'old', key: made.publicKey } })).toMatchObject({ status: 400, body: { error: 'Invalid key: RSA keys must have at least 2048 bits (this one has 1024)' } });
    expect(await api(gh, 'POST', '/api/user/keys', { token: dee.token, body: { title: 'x', key: made.privateKey } })).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Invalid key: this is a private key/) } });
    expect(await api(gh, 'POST', '/api/user/keys', { token: dee.token, body: '{"key": ' })).toMatchObject({ status: 400 });
  });

  it('when a site admin lists and removes a user\'s keys, then they go; a user who is not an admin gets 403', async () => {
    const eve = await createUser(gh, 'eve');
    const made = await generateSshKey('ecdsa', { bits: 384 });
    const added = await api<SshKey>(gh, 'POST', '/api/user/keys', { token: eve.token, body: { key: made.publicKey } });
    expect(await api(gh, 'GET', '/api/admin/users/eve/keys', { token: root.token })).toMatchObject({ status: 200, body: [added.body] });
    expect(await api(gh, 'GET', '/api/admin/users/eve/keys', { token: eve.token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect((await api(gh, 'DELETE', `/api/admin/users/eve/keys/${added.body.id}`, { token: root.token })).status).toBe(204);
    expect((await api(gh, 'GET', '/api/user/keys', { token: eve.token })).body).toEqual([]);
  });

  it('when the owner manages deploy keys, then a writer gets 403, a stranger to the private repository 404, and a key in use elsewhere 422', async () => {
    const [own, writer, stranger] = [await createUser(gh, 'fay'), await createUser(gh, 'fay-writer'), await createUser(gh, 'fay-stranger')];
    await createRepo(gh, own.token, 'site', { private: true });
    await addCollaborator(gh, own.token, 'fay', 'site', 'fay-writer', 'write');
    const made = await generateSshKey('ed25519', { comment: 'ci@runner' });
    const added = await api<DeployKey>(gh, 'POST', '/api/repos/fay/site/keys', { token: own.token, body: { key: made.publicKey } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ id: expect.any(Number), title: 'ci@runner', key: expect.stringMatching(/^ssh-ed25519 /), fingerprint: made.fingerprint, read_only: true, created_at: expect.any(String) });
    expect((await api(gh, 'GET', '/api/repos/fay/site/keys', { token: own.token })).body).toEqual([added.body]);
    expect((await api(gh, 'GET', `/api/repos/fay/site/keys/${added.body.id}`, { token: own.token })).body).toEqual(added.body);

    expect(await api(gh, 'GET', '/api/repos/fay/site/keys', { token: writer.token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect(await api(gh, 'DELETE', `/api/repos/fay/site/keys/${added.body.id}`, { token: writer.token })).toMatchObject({ status: 403, body: { error: 'Forbidden' } });
    expect(await api(gh, 'GET', '/api/repos/fay/site/keys', { token: stranger.token })).toMatchObject({ status: 404, body: { error: 'Repository not found' } });
    expect(await api(gh, 'POST', '/api/repos/fay/site/keys', { token: stranger.token, body: { key: (await generateSshKey('ed25519')).publicKey } })).toMatchObject({ status: 404, body: { error: 'Repository not found' } });
    expect(await api(gh, 'POST', '/api/user/keys', { token: stranger.token, body: { key: made.publicKey } })).toMatchObject({ status: 422, body: { error: 'Key is already in use' } });

    expect((await api(gh, 'DELETE', `/api/repos/fay/site/keys/${added.body.id}`, { token: own.token })).status).toBe(204);
    expect((await api(gh, 'GET', '/api/repos/fay/site/keys', { token: own.token })).body).toEqual([]);
    // Once the deploy key is gone, the key may be registered again.
    expect((await api(gh, 'POST', '/api/user/keys', { token: stranger.token, body: { key: made.publicKey } })).status).toBe(201);
  });
});
