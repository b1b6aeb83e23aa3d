import { describe, expect, it } from '@jest/globals';
import { signLfsActionGrant, type LfsActionGrant } from '@githost/identity';
import { gatewaysPerTest, type RateLimits } from './support/gateways-per-test.js';

const SECRET = 'gateway-rate-limit-test-secret';
const alice = { id: 'u-alice', username: 'alice', token: 'alice-token-aaaaaaaaaaaaaaaa' };
const bob = { id: 'u-bob', username: 'bob', token: 'bob-token-bbbbbbbbbbbbbbbbbbbb' };

/** A gateway of its own per test, so budgets spent in one test do not leak into the next. */
const { gatewayWith: limited } = gatewaysPerTest(SECRET, [alice, bob]);
const gatewayWith = (perTokenPerMinute: number, anonymousPerMinute: number, git?: RateLimits['git'], lfs?: RateLimits['lfs']) => limited({ rateLimits: { perTokenPerMinute, anonymousPerMinute, git, lfs } });

const OID = 'a'.repeat(64);
/** The `Authorization` a batch answer hands git-lfs for alice's `demo` (docs/decisions/lfs.md);
 *  `oid: null` is git-lfs-authenticate's credential for the whole LFS API. */
function grantFor(operation: LfsActionGrant['operation'], oid: string | null): string {
  const principal = { user_id: alice.id, username: alice.username, email: 'alice@example.com', is_admin: false };
  return `RemoteAuth ${signLfsActionGrant({ principal, repository: 'alice/demo', oid, operation, expires_at: Date.now() + 600_000 }, SECRET)}`;
}

async function get(base: string, path: string, token?: string, authorization = token ? `Bearer ${token}` : undefined) {
  const res = await fetch(base + path, { headers: authorization ? { authorization } : {} });
  const text = await res.text();
  const header = (name: string) => res.headers.get(name);
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, header };
}

async function post(base: string, path: string, authorization: string) {
  const res = await fetch(base + path, { method: 'POST', headers: { authorization, 'content-type': 'application/vnd.git-lfs+json' }, body: '{}' });
  await res.arrayBuffer();
  return { status: res.status, header: (name: string) => res.headers.get(name) };
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

  it('when LFS objects are moved with their grants, then they spend the user LFS budget and not the git one, and a spent LFS budget answers 429 in git-lfs shape', async () => {
    const base = await gatewayWith(100, 100, { perTokenPerMinute: 3, perAddressPerMinute: 100 }, { perUserPerMinute: 4 });
    const objects = [];
    for (let i = 0; i < 2; i++) {
      const download = await get(base, `/alice/demo.git/info/lfs/objects/${OID}`, undefined, grantFor('download', OID));
      const verify = await post(base, `/alice/demo.git/info/lfs/objects/${OID}/verify`, grantFor('upload', OID));
      objects.push([download.status, download.header('ratelimit-limit'), download.header('ratelimit-remaining'), verify.status, verify.header('ratelimit-remaining')]);
    }
    expect(objects).toEqual([[200, '4', '3', 200, '2'], [200, '4', '1', 200, '0']]);

    // The batch is the operation: it spends the git budget, with a token or git-lfs-authenticate's grant.
    const batchByToken = await post(base, '/alice/demo.git/info/lfs/objects/batch', `Bearer ${alice.token}`);
    const batchByGrant = await post(base, '/alice/demo.git/info/lfs/objects/batch', grantFor('upload', null));
    const clone = await get(base, '/alice/demo.git/info/refs?service=git-upload-pack', alice.token);
    expect([batchByToken.status, batchByToken.header('ratelimit-limit'), batchByToken.header('ratelimit-remaining'), batchByGrant.status, batchByGrant.header('ratelimit-remaining'), clone.status, clone.header('ratelimit-remaining')]).toEqual([
      200, '3', '2', 200, '1', 200, '0',
    ]);

    const refused = await get(base, `/alice/demo.git/info/lfs/objects/${OID}`, undefined, grantFor('download', OID));
    expect([refused.status, refused.header('content-type'), refused.body.message, typeof refused.body.request_id, refused.header('ratelimit-remaining'), refused.header('ratelimit-policy')]).toEqual([
      429,
      'application/vnd.git-lfs+json',
      'Rate limit exceeded',
      'string',
      '0',
      '4;w=60',
    ]);
    const retryAfter = Number(refused.header('retry-after'));
    expect(retryAfter > 0 && retryAfter <= 60).toBe(true);
    // Bob's LFS budget is his own.
    const bobs = `RemoteAuth ${signLfsActionGrant({ principal: { user_id: bob.id, username: bob.username, email: 'bob@example.com', is_admin: false }, repository: 'alice/demo', oid: OID, operation: 'download', expires_at: Date.now() + 600_000 }, SECRET)}`;
    const other = await get(base, `/alice/demo.git/info/lfs/objects/${OID}`, undefined, bobs);
    expect([other.status, other.header('ratelimit-remaining')]).toEqual([200, '3']);
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
