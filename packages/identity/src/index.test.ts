import { describe, expect, it } from '@jest/globals';
import { canRead, canWrite, decodeIdentity, deployKeyRepository, isRepoVisible, encodeIdentity, IDENTITY_HEADER, repositoryRefusal, SIGNATURE_HEADER, signInternalCall, verifyInternalCall, type Identity, type RepoFields } from './index.js';

const secret = 'a-very-long-internal-secret';
const identity: Identity = {
  principal: { user_id: 'u1', username: 'alice', email: 'alice@example.com', is_admin: false },
  repo: null,
  request_id: 'r1',
  issued_at: 1_000_000,
};

describe('identity headers', () => {
  it('when signed with the secret, then it decodes to the same identity', () => {
    expect(decodeIdentity(encodeIdentity(identity, secret), secret, 1_000_100)).toEqual(identity);
  });
  it('when the payload is altered, then it is refused', () => {
    const h = encodeIdentity(identity, secret);
    const forged = Buffer.from(JSON.stringify({ ...identity, principal: { ...identity.principal, is_admin: true } })).toString('base64url');
    expect(() => decodeIdentity({ ...h, [IDENTITY_HEADER]: forged }, secret, 1_000_100)).toThrow('Invalid internal identity');
  });
  it('when signed with another secret, missing, or stale, then it is refused', () => {
    expect(() => decodeIdentity(encodeIdentity(identity, 'another-secret-of-length'), secret, 1_000_100)).toThrow('Invalid internal identity');
    expect(() => decodeIdentity({}, secret)).toThrow('Missing internal identity');
    expect(() => decodeIdentity({ ...encodeIdentity(identity, secret), [SIGNATURE_HEADER]: 'zz' }, secret, 1_000_100)).toThrow();
    expect(() => decodeIdentity(encodeIdentity(identity, secret), secret, 1_000_000 + 10 * 60_000)).toThrow('Expired internal identity');
  });
  it('when permissions are compared, then write implies read', () => {
    expect([canRead('none'), canRead('read'), canRead('write'), canRead('admin')]).toEqual([false, true, true, true]);
    expect([canWrite('read'), canWrite('write'), canWrite('admin')]).toEqual([false, true, true]);
  });
});

describe('internal call credential', () => {
  const method = '/githost.storage.v1.StorageService/UpdateRef';
  it('when signed for the method within the window, then it verifies', () => {
    expect(() => verifyInternalCall(method, signInternalCall(method, secret, 1_000_000), secret, 1_000_000 + 59_000)).not.toThrow();
    expect(() => verifyInternalCall(method, signInternalCall(method, secret, 1_000_000), secret, 1_000_000 - 59_000)).not.toThrow();
  });
  it('when missing, forged, expired or signed for another method, then it is refused', () => {
    expect(() => verifyInternalCall(method, undefined, secret)).toThrow('Missing internal call credential');
    expect(() => verifyInternalCall(method, signInternalCall(method, 'another-secret-of-length', 1_000_000), secret, 1_000_000)).toThrow('Invalid internal call credential');
    expect(() => verifyInternalCall(method, signInternalCall(method, secret, 1_000_000), secret, 1_000_000 + 61_000)).toThrow('Expired internal call credential');
    expect(() => verifyInternalCall(method, signInternalCall('/githost.storage.v1.StorageService/ReadBlob', secret, 1_000_000), secret, 1_000_000)).toThrow('Invalid internal call credential');
    // The timestamp is part of what is signed: moving it forward breaks the signature.
    const [, mac] = signInternalCall(method, secret, 1_000_000).split('.');
    expect(() => verifyInternalCall(method, `2000000.${mac}`, secret, 2_000_000)).toThrow('Invalid internal call credential');
    expect(() => verifyInternalCall(method, 'garbage', secret)).toThrow('Invalid internal call credential');
  });
});

describe('isRepoVisible (CONTRACT §3)', () => {
  it('when the repository is private, then only a caller who can read it sees it, and no repository is never seen', () => {
    expect(['none', 'read', 'write', 'admin'].map((permission) => isRepoVisible({ private: true, permission: permission as 'none' }))).toEqual([false, true, true, true]);
    expect(isRepoVisible({ private: false, permission: 'none' })).toBe(true);
    expect(isRepoVisible(null)).toBe(false);
  });
});

describe('repositoryRefusal (CONTRACT §3, §9 Access; shared by smart HTTP and SSH)', () => {
  it('when the repository is missing or private and unreadable, then not_found, whatever the access', () => {
    expect(repositoryRefusal(null, 'read', false)).toBe('not_found');
    expect(repositoryRefusal({ private: true, permission: 'none' }, 'write', true)).toBe('not_found');
  });
  it('when writing without write, then sign_in for the anonymous and read_only for the others', () => {
    expect(repositoryRefusal({ private: false, permission: 'read' }, 'write', true)).toBe('sign_in');
    expect(repositoryRefusal({ private: false, permission: 'read' }, 'write', false)).toBe('read_only');
    expect(repositoryRefusal({ private: true, permission: 'write' }, 'write', false)).toBeUndefined();
    expect(repositoryRefusal({ private: false, permission: 'none' }, 'read', true)).toBeUndefined();
  });
});

describe('deployKeyRepository (docs/decisions/ssh-keys.md)', () => {
  const repo: RepoFields = { id: 'r1', owner: 'Alice', name: 'Demo', default_branch: 'main', private: true, shard: 'default', owner_id: 'u1' };
  it('when the key names its own repository, in any case, then read or write as the key says', () => {
    expect(deployKeyRepository(repo, true, 'alice', 'demo')).toEqual({ ...repo, permission: 'read' });
    expect(deployKeyRepository(repo, false, 'ALICE', 'DEMO')?.permission).toBe('write');
  });
  it('when it names any other repository, then none (answered as missing)', () => {
    expect(deployKeyRepository(repo, false, 'alice', 'other')).toBeNull();
    expect(deployKeyRepository(repo, false, 'bob', 'demo')).toBeNull();
  });
});
