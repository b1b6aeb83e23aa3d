import { describe, expect, it } from '@jest/globals';
import { canRead, canWrite, decodeIdentity, encodeIdentity, IDENTITY_HEADER, SIGNATURE_HEADER, type Identity } from './index.js';

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
