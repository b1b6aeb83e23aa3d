import { describe, expect, it } from '@jest/globals';
import { signClientForwarding, type Identity } from '@githost/identity';
import { gatewaysPerTest } from './support/gateways-per-test.js';

const SECRET = 'gateway-client-forwarding-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };

/** A gateway of its own per test, so budgets spent in one test do not leak into the next. */
const { upstream, gatewayWith: limited } = gatewaysPerTest(SECRET, [alice]);
const gatewayWith = (anonymousPerMinute: number) => limited({ rateLimits: { perTokenPerMinute: 0, anonymousPerMinute } });

const browserA = { address: '203.0.113.10', userAgent: 'Mozilla/5.0 Firefox/133.0' };
const browserB = { address: '2001:db8::b', userAgent: 'Mozilla/5.0 Safari/18.0' };

/** Sends a request as the web service does for a browser, and returns what the upstream saw. */
async function call(base: string, path: string, headers: Record<string, string>, init: RequestInit = {}) {
  const before = upstream().seen.length;
  const res = await fetch(base + path, { ...init, headers: { 'user-agent': 'githost-web/0.1', ...headers, ...(init.headers as Record<string, string>) } });
  const body = await res.text();
  const seen = upstream().seen.slice(before).at(-1);
  return { status: res.status, body, seen, identity: seen?.identity as Identity | undefined };
}

const forwardingHeaders = (seen: { headers: Record<string, unknown> } | undefined) => Object.keys(seen?.headers ?? {}).filter((h) => h.startsWith('x-githost-client'));

describe('client forwarding (README "Internal calls")', () => {
  it('when the web signs a browser\'s address and user agent, then services see them, the headers are not passed on, and each browser has its own anonymous budget', async () => {
    const base = await gatewayWith(2);
    const first = await call(base, '/api/repos/alice/demo', signClientForwarding(SECRET, browserA));
    expect(first.status).toBe(200);
    expect(first.identity?.client).toEqual({ address: '203.0.113.10', user_agent: 'Mozilla/5.0 Firefox/133.0' });
    expect(forwardingHeaders(first.seen)).toEqual([]);
    expect((await call(base, '/api/repos/alice/demo', signClientForwarding(SECRET, browserA))).status).toBe(200);
    expect((await call(base, '/api/repos/alice/demo', signClientForwarding(SECRET, browserA))).status).toBe(429);
    // Another browser behind the same web service is not refused with the first.
    const other = await call(base, '/api/repos/alice/demo', signClientForwarding(SECRET, browserB));
    expect([other.status, other.identity?.client]).toEqual([200, { address: '2001:db8::b', user_agent: 'Mozilla/5.0 Safari/18.0' }]);
    // Nor is the web's own address.
    expect((await call(base, '/api/repos/alice/demo', {})).status).toBe(200);
  });

  it('when the signature is forged, then the connection\'s own address and user agent are used and the headers are dropped', async () => {
    const base = await gatewayWith(2);
    const forged = await call(base, '/api/repos/alice/demo', signClientForwarding('not-the-internal-secret', browserA));
    expect(forged.status).toBe(200);
    expect(forged.identity?.client).toEqual({ address: expect.stringMatching(/127\.0\.0\.1$/), user_agent: 'githost-web/0.1' });
    expect(forwardingHeaders(forged.seen)).toEqual([]);
    const altered = await call(base, '/api/repos/alice/demo', { ...signClientForwarding(SECRET, browserA), 'x-githost-client-address': '198.51.100.1' });
    expect(altered.identity?.client?.address).toMatch(/127\.0\.0\.1$/);
    // Both counted against the connection's address, which is now spent.
    expect((await call(base, '/api/repos/alice/demo', signClientForwarding('not-the-internal-secret', browserB))).status).toBe(429);
  });

  it('when the signature is older than a minute, then it is ignored like a forged one', async () => {
    const base = await gatewayWith(0);
    const expired = await call(base, '/api/repos/alice/demo', signClientForwarding(SECRET, browserA, Date.now() - 61_000));
    expect(expired.identity?.client).toEqual({ address: expect.stringMatching(/127\.0\.0\.1$/), user_agent: 'githost-web/0.1' });
    expect(forwardingHeaders(expired.seen)).toEqual([]);
  });

  it('when anyone signs in, then POST /api/sessions reaches accounts without a credential, with the client; other methods there are 404', async () => {
    const base = await gatewayWith(0);
    const signIn = await call(base, '/api/sessions', { ...signClientForwarding(SECRET, browserA), 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ username: 'alice', password: 'secret password' }) });
    expect([signIn.status, signIn.seen?.url, signIn.identity?.principal, signIn.identity?.client?.address]).toEqual([200, '/api/sessions', null, '203.0.113.10']);
    expect((await call(base, '/api/sessions', {})).status).toBe(404);
  });
});
