import { describe, expect, it } from '@jest/globals';
import { generateSshKey } from '@githost/test-support';
import type { SshKeyOwner, SshKeyRecord, SshKeyStore } from './ports.js';
import { addDeployKey, addOwnKey, keyIdOf, lookupSshKey } from './ssh-keys.js';
import type { Caller, Repository, User } from './types.js';

const ana: User = { id: 'u1', username: 'ana', email: 'ana@example.test', is_admin: false, suspended_at: null, created_at: '2026-01-01T00:00:00.000Z' };
const repo = { id: 'r1', owner: 'ana', owner_id: 'u1', name: 'site' } as Repository;
const caller: Caller = { user_id: 'u1', username: 'ana', is_admin: false };

/** In-memory keys, one user and one repository: enough for the rules. */
function world() {
  const keys: { key: SshKeyRecord; owner: SshKeyOwner }[] = [];
  const users = new Map([[ana.id, ana]]);
  const sshKeys: SshKeyStore = {
    insert: async (owner, key) => {
      const record = { ...key, id: keys.length + 1, created_at: '2026-01-01T00:00:00.000Z' };
      keys.push({ key: record, owner });
      return record;
    },
    list: async () => keys.map((k) => k.key),
    get: async () => null,
    remove: async () => false,
    byFingerprint: async (fingerprint) => keys.find((k) => k.key.fingerprint === fingerprint) ?? null,
    byId: async (id) => keys.find((k) => k.key.id === id) ?? null,
  };
  const deps = {
    sshKeys,
    users: { byIds: async (ids: string[]) => ids.flatMap((id) => users.get(id) ?? []) },
    repositories: { byId: async (id: string) => (id === repo.id ? repo : null) },
  } as unknown as Parameters<typeof lookupSshKey>[0];
  return { deps, users, keys };
}

describe('SSH keys', () => {
  it('when a user adds a key asking for read_only, then it is stored without it (a user key has the user\'s access)', async () => {
    const { deps } = world();
    const made = await generateSshKey('ed25519', { comment: 'ana@laptop' });
    const key = await addOwnKey(deps, caller, { key: made.publicKey, read_only: true });
    expect(key).toMatchObject({ title: 'ana@laptop', read_only: false, fingerprint: made.fingerprint });
  });

  it('when a deploy key is added by the repository admin, then it is read-only unless read_only is false; a writer is refused', async () => {
    const { deps } = world();
    const [a, b] = [await generateSshKey('ed25519'), await generateSshKey('ed25519')];
    expect((await addDeployKey(deps, { id: 'r1', permission: 'admin' }, { key: a.publicKey })).read_only).toBe(true);
    expect((await addDeployKey(deps, { id: 'r1', permission: 'admin' }, { key: b.publicKey, read_only: false })).read_only).toBe(false);
    await expect(addDeployKey(deps, { id: 'r1', permission: 'write' }, { key: b.publicKey })).rejects.toMatchObject({ kind: 'forbidden' });
    await expect(addDeployKey(deps, { id: 'r1', permission: 'none' }, { key: b.publicKey })).rejects.toMatchObject({ kind: 'not_found', message: 'Repository not found' });
  });

  it('when a key is looked up, then a user\'s answers user, or refused once the user is suspended; a deploy key answers its repository, or refused once its owner is suspended', async () => {
    const { deps, users } = world();
    const [mine, deploy] = [await generateSshKey('ecdsa', { bits: 256 }), await generateSshKey('ed25519')];
    await addOwnKey(deps, caller, { key: mine.publicKey });
    await addDeployKey(deps, { id: 'r1', permission: 'admin' }, { key: deploy.publicKey, read_only: false });
    expect(await lookupSshKey(deps, mine.fingerprint)).toMatchObject({ outcome: 'user', user: { username: 'ana' } });
    expect(await lookupSshKey(deps, deploy.fingerprint)).toMatchObject({ outcome: 'deploy_key', repository: { id: 'r1' }, key: { read_only: false } });
    users.set(ana.id, { ...ana, suspended_at: '2026-02-01T00:00:00.000Z' });
    expect(await lookupSshKey(deps, mine.fingerprint)).toMatchObject({ outcome: 'refused' });
    expect(await lookupSshKey(deps, deploy.fingerprint)).toMatchObject({ outcome: 'refused', key: { fingerprint: deploy.fingerprint } });
    users.set(ana.id, ana);
    expect(await lookupSshKey(deps, deploy.fingerprint)).toMatchObject({ outcome: 'deploy_key' });
    expect(await lookupSshKey(deps, `SHA256:${'A'.repeat(43)}`)).toEqual({ outcome: 'not_found' });
    await expect(lookupSshKey(deps, 'SHA256:short')).rejects.toMatchObject({ kind: 'validation' });
  });

  it('when a key is looked up by its id (OpenSSH mode), then the same answer as by its fingerprint', async () => {
    const { deps } = world();
    const made = await generateSshKey('ed25519');
    const key = await addOwnKey(deps, caller, { key: made.publicKey });
    expect(await lookupSshKey(deps, { key_id: key.id })).toEqual(await lookupSshKey(deps, { fingerprint: made.fingerprint }));
    expect(await lookupSshKey(deps, { key_id: key.id + 1 })).toEqual({ outcome: 'not_found' });
    await expect(lookupSshKey(deps, { key_id: 0 })).rejects.toMatchObject({ kind: 'validation' });
  });

  it('when a key id is not a positive integer, then it names no key', () => {
    expect(keyIdOf('42')).toBe(42);
    for (const id of ['0', '-1', '1e3', '01', 'abc', '99999999999999999']) expect(() => keyIdOf(id)).toThrow('Key not found');
  });
});
