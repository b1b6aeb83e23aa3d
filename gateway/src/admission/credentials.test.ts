import { describe, expect, it } from '@jest/globals';
import { parseAuthorization } from './credentials.js';

const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

describe('Authorization header', () => {
  it('when absent or blank, then anonymous', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
    expect(parseAuthorization('  ')).toEqual({ kind: 'none' });
  });
  it('when Bearer, then the token', () => {
    expect(parseAuthorization('Bearer abc123')).toEqual({ kind: 'token', token: 'abc123' });
  });
  it('when Basic, then the password is the token whatever the username', () => {
    expect(parseAuthorization(basic('alice:tok'))).toEqual({ kind: 'token', token: 'tok' });
    expect(parseAuthorization(basic('x-access-token:p:w'))).toEqual({ kind: 'token', token: 'p:w' });
    expect(parseAuthorization(basic('tok:'))).toEqual({ kind: 'token', token: 'tok' });
  });
  it('when the scheme is unknown or the value empty, then malformed', () => {
    for (const h of ['Bearer', 'Digest x', basic(':'), 'Bearer a b', `Bearer ${'x'.repeat(2000)}`]) expect(parseAuthorization(h)).toEqual({ kind: 'malformed' });
  });
});
