import { describe, expect, it } from '@jest/globals';
import { cookieHeader, CsrfTokens } from './session.js';

describe('anti-CSRF tokens', () => {
  const tokens = new CsrfTokens('s'.repeat(32));
  it('when the token was made for this session, then it verifies; for another session or none, then not', () => {
    const token = tokens.tokenFor({ kind: 'session', value: 'secret-a' });
    expect(tokens.verify({ kind: 'session', value: 'secret-a' }, token)).toBe(true);
    expect(tokens.verify({ kind: 'session', value: 'secret-b' }, token)).toBe(false);
    expect(tokens.verify({ kind: 'pre-session', value: 'secret-a' }, token)).toBe(false);
    expect(tokens.verify(undefined, token)).toBe(false);
    expect(tokens.verify({ kind: 'session', value: 'secret-a' }, '')).toBe(false);
    expect(tokens.verify({ kind: 'session', value: 'secret-a' }, ['x'])).toBe(false);
  });
  it('when another internal secret made the token, then it does not verify', () => {
    const other = new CsrfTokens('t'.repeat(32)).tokenFor({ kind: 'session', value: 'a' });
    expect(tokens.verify({ kind: 'session', value: 'a' }, other)).toBe(false);
  });
});

describe('cookies', () => {
  it('when the site is https, then the session cookie is Secure as well as HttpOnly and SameSite=Lax', () => {
    expect(cookieHeader('githost_session', 'a b', { secure: true })).toBe('githost_session=a%20b; Path=/; HttpOnly; SameSite=Lax; Secure');
    expect(cookieHeader('githost_session', '', { secure: false, maxAgeSeconds: 0 })).toBe('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});
