import { describe, expect, it } from '@jest/globals';
import { gatewaysPerTest, type RateLimits } from './support/gateways-per-test.js';

const SECRET = 'gateway-rate-limit-test-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };

/** A gateway of its own per test, so budgets spent in one test do not leak into the next. */
const { gatewayWith: limited } = gatewaysPerTest(SECRET, [alice, bob]);
const gatewayWith = (perTokenPerMinute: number, anonymousPerMinute: number, git?: RateLimits['git']) => limited({ rateLimits: { perTokenPerMinute, anonymousPerMinute, git } });

async function get(base: string, path: string, token?: string, authorization = token ? `Bearer ${token}` : undefined) {
  const res = await fetch(base + path, { headers: authorization ? { authorization } : {} });
  const text = await res.text();
  const header = (name: string) => res.headers.get(name);
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, header };
}

describe('gateway rate limiting', () => {
  it('when a token spends its budget, then 429 with Retry-After and RateLimit headers, while another token and anonymous callers go on', async () => {
    const base = await gatewayWith(3, 5);
    const spent = [];
    for (let i = 0; i < 3; i++) {
      const res = await get(base, '/api/repos/alice/demo/branches', alice.token);
      spent.push([res.status, res.header('ratelimit-limit'), res.header('ratelimit-remaining')]);
    }
    expect(spent).toEqual([[200, '3', '2'], [200, '3', '1'], [200, '3', '0']]);

    const refused = await get(base, '/api/user', alice.token);
    expect([refused.status, refused.body, refused.header('ratelimit-remaining')]).toEqual([429, { error: 'Rate limit exceeded' }, '0']);
    const retryAfter = Number(refused.header('retry-after'));
    const reset = Number(refused.header('ratelimit-reset'));
    expect([retryAfter > 0 && retryAfter <= 60, reset > 0 && reset <= 60]).toEqual([true, true]);
    expect(refused.header('ratelimit-policy')).toBe('3;w=60');

    const other = await get(base, '/api/user', bob.token);
    expect([other.status, other.header('ratelimit-remaining')]).toEqual([200, '2']);
    const anonymous = await get(base, '/api/repos/alice/demo');
    expect([anonymous.status, anonymous.header('ratelimit-limit'), anonymous.header('ratelimit-remaining')]).toEqual([200, '5', '4']);
  });

  it('when an anonymous address spends its REST budget, then the API is refused for it, but git transport and health still answer', async () => {
    const base = await gatewayWith(100, 2, { perTokenPerMinute: 100, perAddressPerMinute: 100 });
    expect((await get(base, '/api/repos/alice/demo')).status).toBe(200);
    expect((await get(base, '/api/repos/alice/demo/tags')).status).toBe(200);
    const api = await get(base, '/api/repos/alice/demo/branches');
    expect([api.status, api.body]).toEqual([429, { error: 'Rate limit exceeded' }]);
    const clone = await get(base, '/alice/demo.git/info/refs?service=git-upload-pack');
    expect([clone.status, clone.header('ratelimit-limit'), clone.header('ratelimit-remaining')]).toEqual([200, '100', '99']);
    expect((await get(base, '/healthz')).status).toBe(200);
    expect((await get(base, '/api/repos/alice/demo', alice.token)).status).toBe(200);
  });

  it('when an anonymous address spends its git budget, then git transport is refused for it while the REST API goes on', async () => {
    const base = await gatewayWith(100, 100, { perTokenPerMinute: 100, perAddressPerMinute: 2 });
    expect((await get(base, '/alice/demo.git/info/refs?service=git-upload-pack')).status).toBe(200);
    expect((await get(base, '/alice/demo.git/info/refs?service=git-upload-pack')).status).toBe(200);
    const clone = await get(base, '/alice/demo.git/info/refs?service=git-upload-pack');
    expect([clone.status, clone.body]).toEqual([429, { error: 'Rate limit exceeded' }]);
    expect((await get(base, '/api/repos/alice/demo')).status).toBe(200);
  });

  it('when a git client sends its credential-less first leg and is challenged, then that leg is given back to the address', async () => {
    const base = await gatewayWith(100, 1, { perTokenPerMinute: 100, perAddressPerMinute: 2 });
    const basic = `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`;
    const legs = [];
    for (let i = 0; i < 5; i++) {
      const first = await get(base, '/alice/demo.git/info/refs?service=git-receive-pack');
      const second = await get(base, '/alice/demo.git/info/refs?service=git-receive-pack', undefined, basic);
      legs.push([first.status, first.header('www-authenticate'), second.status]);
    }
    expect(legs).toEqual(Array.from({ length: 5 }, () => [401, 'Basic realm="githost"', 200]));
    // Neither the address's git budget nor its REST budget was spent by the challenged legs.
    const clone = await get(base, '/alice/demo.git/info/refs?service=git-upload-pack');
    expect([clone.status, clone.header('ratelimit-remaining')]).toEqual([200, '1']);
    expect((await get(base, '/api/repos/alice/demo')).status).toBe(200);
  });

  it('when made-up tokens are sent to git transport, then each counts against the address git budget', async () => {
    const base = await gatewayWith(100, 100, { perTokenPerMinute: 100, perAddressPerMinute: 2 });
    const made = (n: number) => `Basic ${Buffer.from(`x:made-up-git-token-${n}-aaaaaaaaaaaa`).toString('base64')}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(base, '/alice/demo.git/info/refs?service=git-receive-pack', undefined, made(i))).status);
    expect(statuses).toEqual([401, 401, 429]);
  });

  it('when a token spends its git budget, then its git requests are refused while its REST budget is untouched', async () => {
    const base = await gatewayWith(100, 100, { perTokenPerMinute: 2, perAddressPerMinute: 100 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(base, '/alice/demo.git/info/refs?service=git-upload-pack', alice.token)).status);
    expect(statuses).toEqual([200, 200, 429]);
    const api = await get(base, '/api/user', alice.token);
    expect([api.status, api.header('ratelimit-remaining')]).toEqual([200, '99']);
  });

  it('when made-up tokens are sent, then each counts against the address, so rotating them does not dodge the limit', async () => {
    const base = await gatewayWith(100, 2);
    expect((await get(base, '/api/user', 'made-up-token-number-one-111111')).status).toBe(401);
    expect((await get(base, '/api/user', 'made-up-token-number-two-222222')).status).toBe(401);
    const third = await get(base, '/api/user', 'made-up-token-number-three-3333');
    expect([third.status, third.body]).toEqual([429, { error: 'Rate limit exceeded' }]);
  });

  it('when a limit is 0, then that kind of client is not limited and gets no RateLimit headers', async () => {
    const base = await gatewayWith(0, 0);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await get(base, '/api/repos/alice/demo')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const res = await get(base, '/api/user', alice.token);
    expect([res.status, res.header('ratelimit-limit')]).toEqual([200, null]);
  });
});
