import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOwnRedis, waitFor, type OwnRedis } from '@githost/test-support';
import { api, createRepo, createUser, startTestGithost, type TestGithost, type TestUser } from './support/index.js';

/**
 * Replicas behind haproxy (docs/decisions/replicas.md) when their Redis stops for 10 s: a Redis of
 * this test's own (never the machine's), so stopping it touches nobody else.
 */
const GIT_LIMIT = 10;
let redis: OwnRedis;
let gh: TestGithost;
let alice: TestUser;

beforeAll(async () => {
  redis = await startOwnRedis();
  gh = await startTestGithost({ backend: 'real', replicas: 2, env: { REDIS_URL: redis.url, GITHOST_GIT_RATE_LIMIT_PER_MINUTE: String(GIT_LIMIT) } });
  alice = await createUser(gh, 'alice');
  await createRepo(gh, alice.token, 'demo');
}, 300_000);

afterAll(async () => {
  await gh?.stop();
  await redis?.stop();
});

const gitRefs = async (base: string, user: TestUser): Promise<number> => {
  const res = await fetch(`${base}/alice/demo.git/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}` } });
  await res.arrayBuffer();
  return res.status;
};

const storeUp = async (port: number): Promise<number | undefined> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('githost_gateway_rate_limit_store_up'));
  return line === undefined ? undefined : Number(line.split(' ').pop());
};

describe('replicas when Redis stops for 10 s', () => {
  it('when Redis stops, then nothing through haproxy is answered 5xx, and once it is back a git budget is one across both gateways again', async () => {
    const gateways = gh.gatewayUrls!;
    const metrics = [gh.metricsPorts!.gateway!, gh.metricsPorts!['gateway 2']!];
    await redis.stop();
    const stoppedAt = Date.now();
    const during: number[] = [];
    while (Date.now() - stoppedAt < 10_000) {
      during.push((await api(gh, 'GET', '/api/repos/alice/demo', { token: alice.token })).status);
      during.push(await gitRefs(gh.url, alice));
    }
    // Each gateway counts its own while Redis is away: 200 or 429, never an error.
    expect(during.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(during.filter((s) => s === 200).length).toBeGreaterThan(0);
    for (const port of metrics) expect(await storeUp(port)).toBe(0);

    await redis.start();
    for (const [i, port] of metrics.entries()) {
      await waitFor(async () => (await gitRefs(gateways[i]!, alice)) !== 500 && (await storeUp(port)) === 1, `gateway ${i + 1} sharing again`);
    }
    const bob = await createUser(gh, 'bob');
    const shared: number[] = [];
    for (let i = 0; i < GIT_LIMIT + 4; i++) shared.push(await gitRefs(gateways[i % 2]!, bob));
    // ±1 per gateway, as with Redis up all along (replicas.test.ts): never the 2x of two counts in memory.
    const admitted = shared.filter((s) => s === 200).length;
    expect([admitted >= GIT_LIMIT && admitted <= GIT_LIMIT + 2, shared.slice(0, GIT_LIMIT).every((s) => s === 200), shared.slice(GIT_LIMIT + 2)]).toEqual([true, true, [429, 429]]);
  }, 180_000);
});
