import { describe, expect, it } from '@jest/globals';
import { CLIENT_ADDRESS_HEADER, CLIENT_SIGNATURE_HEADER, CLIENT_USER_AGENT_HEADER, signClientForwarding, verifyClientForwarding } from './index.js';

const secret = 'a-very-long-internal-secret';
const now = 1_700_000_000_000;
const browser = { address: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' };

describe('client forwarding', () => {
  it('when signed with the secret, then the address and user agent are taken', () => {
    expect(verifyClientForwarding(signClientForwarding(secret, browser, now), secret, now + 1_000)).toEqual({ address: '203.0.113.7', user_agent: browser.userAgent });
  });

  it('when the address is changed after signing, then nothing is taken', () => {
    const headers = { ...signClientForwarding(secret, browser, now), [CLIENT_ADDRESS_HEADER]: '198.51.100.1' };
    expect(verifyClientForwarding(headers, secret, now)).toBeNull();
  });

  it('when the user agent is changed after signing, then nothing is taken', () => {
    const headers = { ...signClientForwarding(secret, browser, now), [CLIENT_USER_AGENT_HEADER]: 'curl/8.0' };
    expect(verifyClientForwarding(headers, secret, now)).toBeNull();
  });

  it('when signed with another secret, then nothing is taken', () => {
    expect(verifyClientForwarding(signClientForwarding('another-long-secret-value', browser, now), secret, now)).toBeNull();
  });

  it('when older or newer than a minute, then nothing is taken', () => {
    const headers = signClientForwarding(secret, browser, now);
    expect(verifyClientForwarding(headers, secret, now + 60_001)).toBeNull();
    expect(verifyClientForwarding(headers, secret, now - 60_001)).toBeNull();
    expect(verifyClientForwarding(headers, secret, now + 60_000)).not.toBeNull();
  });

  it('when the signature is missing or malformed, then nothing is taken', () => {
    const headers = signClientForwarding(secret, browser, now);
    expect(verifyClientForwarding({ ...headers, [CLIENT_SIGNATURE_HEADER]: undefined }, secret, now)).toBeNull();
    expect(verifyClientForwarding({ ...headers, [CLIENT_SIGNATURE_HEADER]: 'abc' }, secret, now)).toBeNull();
    expect(verifyClientForwarding({ ...headers, [CLIENT_SIGNATURE_HEADER]: `${now}.zz` }, secret, now)).toBeNull();
  });

  it('when the address is not an IP address, then nothing is taken even if signed', () => {
    expect(verifyClientForwarding(signClientForwarding(secret, { address: 'evil.example', userAgent: null }, now), secret, now)).toBeNull();
  });

  it('when no user agent is forwarded, then it reads as null', () => {
    expect(verifyClientForwarding(signClientForwarding(secret, { address: '2001:db8::1', userAgent: null }, now), secret, now)).toEqual({ address: '2001:db8::1', user_agent: null });
  });
});
