import { describe, expect, it } from '@jest/globals';
import { backoffDelay, decideNext, parseRetryAfter } from './retry-policy.js';

const policy = { maxAttempts: 6, baseDelayMs: 10_000 };
const half = () => 0.5;

describe('decideNext', () => {
  it('when the receiver answers 2xx, then the delivery is delivered', () => {
    expect(decideNext({ kind: 'response', status: 200 }, 1, policy)).toEqual({ next: 'delivered' });
    expect(decideNext({ kind: 'response', status: 204 }, 6, policy)).toEqual({ next: 'delivered' });
  });

  it('when the receiver answers 5xx, 408 or 429, then it is retried', () => {
    for (const status of [500, 502, 503, 408, 429]) {
      expect(decideNext({ kind: 'response', status }, 1, policy, half)).toEqual({ next: 'retry', delayMs: 7500 });
    }
  });

  it('when the network fails or times out, then it is retried', () => {
    expect(decideNext({ kind: 'network', error: 'Timeout awaiting request' }, 2, policy, half)).toEqual({ next: 'retry', delayMs: 15000 });
  });

  it('when the receiver answers another 4xx or a redirect, then it fails at once', () => {
    for (const status of [400, 401, 404, 410, 301, 302]) {
      expect(decideNext({ kind: 'response', status }, 1, policy)).toEqual({ next: 'failed' });
    }
  });

  it('when the SSRF guard refused the target, then it fails at once', () => {
    expect(decideNext({ kind: 'refused', error: 'loopback' }, 1, policy)).toEqual({ next: 'failed' });
  });

  it('when the last attempt fails retryably, then it is failed', () => {
    expect(decideNext({ kind: 'response', status: 500 }, 6, policy)).toEqual({ next: 'failed' });
  });

  it('when the receiver sends Retry-After, then the wait is at least that long', () => {
    expect(decideNext({ kind: 'response', status: 429, retryAfterSeconds: 60 }, 1, policy, half)).toEqual({ next: 'retry', delayMs: 60_000 });
  });
});

describe('backoffDelay', () => {
  it('when attempts go on, then the delay doubles with half of it jittered', () => {
    expect(backoffDelay(1, policy, () => 0)).toBe(5000);
    expect(backoffDelay(1, policy, () => 1)).toBe(10000);
    expect(backoffDelay(3, policy, () => 0)).toBe(20000);
    expect(backoffDelay(3, policy, () => 1)).toBe(40000);
  });

  it('when the exponent grows large, then the delay stays under the ceiling', () => {
    expect(backoffDelay(40, { ...policy, maxDelayMs: 3_600_000 }, () => 1)).toBe(3_600_000);
  });
});

describe('parseRetryAfter', () => {
  it('when given seconds, then they are read; otherwise undefined', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBeUndefined();
  });
});
