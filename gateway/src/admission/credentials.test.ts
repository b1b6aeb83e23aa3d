import { describe, expect, it } from '@jest/globals';
import { parseAuthorization } from './credentials.js';

const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

describe('Authorization header', () => {
  it('when absent or blank, then anonymous', () => {
    expect(parseAuthorization(undefined)).toEqual({ kind: 'none' });
    expect(parseAuthorization('  ')).toEqual({ kind: 'none' });
  });
  it('when RemoteAuth, then an LFS action grant, checked by the admission and never sent to accounts', () => {
    expect(parseAuthorization('RemoteAuth abc.def')).toEqual({ kind: 'lfs-action', grant: 'abc.def' });
    expect(parseAuthorization(`RemoteAuth ${'x'.repeat(9000)}`)).toEqual({ kind: 'malformed' });
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
