import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { guardedLookup, REFUSED_CODE, refuseLiteralAddress } from './guarded-lookup.js';

const lookup = (host: string, all: boolean) =>
  new Promise<{ err: (Error & { code?: string }) | null; result: unknown }>((resolve) => {
    guardedLookup(host, { all }, (err: NodeJS.ErrnoException | null, address: string | LookupAddress[]) => resolve({ err, result: address }));
  });

describe('guardedLookup', () => {
  it('when a name resolves only to loopback, then the lookup fails with the refusal reason', async () => {
    const { err } = await lookup('localhost', false);
    expect(err?.code).toBe(REFUSED_CODE);
    expect(err?.message).toMatch(/^Refused to deliver to localhost \((127\.0\.0\.1|::1)\): loopback address not allowed$/);
  });

  it('when the caller asks for all addresses, then it is refused the same way', async () => {
    const { err } = await lookup('localhost', true);
    expect(err?.code).toBe(REFUSED_CODE);
  });

  it('when a literal public address is looked up, then it is returned in the shape asked for', async () => {
    expect((await lookup('8.8.8.8', false)).result).toBe('8.8.8.8');
    expect((await lookup('8.8.8.8', true)).result).toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});

describe('refuseLiteralAddress', () => {
  it('when the URL host is a private or loopback literal, then it is refused', () => {
    expect(refuseLiteralAddress('http://127.0.0.1:8080/x')).toBe('Refused to deliver to 127.0.0.1: loopback address not allowed');
    expect(refuseLiteralAddress('http://[::1]/x')).toBe('Refused to deliver to ::1: loopback address not allowed');
    expect(refuseLiteralAddress('http://[::ffff:10.0.0.1]/x')).toMatch(/private address not allowed$/);
    expect(refuseLiteralAddress('https://10.0.0.8/')).toBe('Refused to deliver to 10.0.0.8: private address not allowed');
  });

  it.each([
    ['http://[::ffff:0:7f00:1]/x', 'loopback'],
    ['http://[2002:7f00:1::]/x', 'loopback'],
    ['http://[64:ff9b::a00:1]/x', 'private'],
    ['http://[64:ff9b:1::808:808]/x', 'translation'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x', 'loopback'],
    ['http://[::127.0.0.1]/x', 'loopback'],
  ])('when the URL host %s wraps an IPv4 address in a translation prefix, then it is refused as %s', (url, cls) => {
    expect(refuseLiteralAddress(url)).toMatch(new RegExp(`: ${cls} address not allowed$`));
  });

  it('when the host is a public literal or a name, then the check is left to connect time', () => {
    expect(refuseLiteralAddress('https://8.8.8.8/hook')).toBeNull();
    expect(refuseLiteralAddress('https://hooks.example.com/hook')).toBeNull();
  });
});
