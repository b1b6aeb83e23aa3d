import { afterAll, afterEach, beforeAll } from '@jest/globals';
import { createServer, type Config, type Service } from '../../src/index.js';
import { startEchoUpstream } from './echo-upstream.js';
import { startFakeAccounts, type FakeUser } from './fake-accounts.js';

export type EchoUpstream = Awaited<ReturnType<typeof startEchoUpstream>>;
export type RateLimits = NonNullable<Config['rateLimits']>;
/** What a test sets on its gateway; the rest is the fakes'. */
export type GatewaySettings = Pick<Config, 'rateLimits' | 'bodyTimeoutMs' | 'rateLimitStore'>;

/**
 * Fake accounts (the users given, alice's public `demo`) and one echo upstream behind every
 * route, for tests that start a gateway of their own per test so that budgets spent in one
 * test do not leak into the next. Call at a test file's top level: it registers the hooks that
 * start the fakes, stop each test's gateways after it, and stop the fakes at the end.
 */
export function gatewaysPerTest(
  secret: string,
  users: FakeUser[],
): { upstream(): EchoUpstream; gatewayWith(settings: GatewaySettings): Promise<string>; gatewayPorts(settings: GatewaySettings): Promise<{ base: string; metrics: string }> } {
  let accounts: Awaited<ReturnType<typeof startFakeAccounts>>;
  let upstream: EchoUpstream;
  const gateways: Service[] = [];

  beforeAll(async () => {
    accounts = await startFakeAccounts(users, [{ id: 'r-pub', owner: 'alice', name: 'demo', private: false, collaborators: {} }], secret);
    upstream = await startEchoUpstream('any', secret);
  });

  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
  });

  afterAll(async () => {
    await upstream.close();
    await accounts.close();
  });

  const start = async (settings: GatewaySettings) => {
    const url = upstream.url;
    const config: Config = {
      port: 0,
      metricsPort: 0,
      internalSecret: secret,
      accountsGrpcAddress: accounts.address,
      upstreams: { accounts: url, 'git-storage': url, browse: url, 'merge-requests': url, webhooks: url },
      ...settings,
    };
    const gateway = createServer(config);
    gateways.push(gateway);
    const ports = await gateway.start();
    return { base: `http://127.0.0.1:${ports.httpPort}`, metrics: `http://127.0.0.1:${ports.metricsPort}/metrics` };
  };
  return {
    upstream: () => upstream,
    /** A gateway with these settings; its base URL. */
    gatewayWith: async (settings) => (await start(settings)).base,
    /** A gateway with these settings; its base URL and its metrics URL. */
    gatewayPorts: start,
  };
}
