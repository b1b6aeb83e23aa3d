import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from '../src/server.js';
import { loadConfig } from '../src/config.js';

/** The service alone, without a gateway behind it: what it answers before it calls the API. */
let base: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  const config = loadConfig({ GITHOST_INTERNAL_SECRET: 's'.repeat(32), HTTP_PORT: '0', METRICS_PORT: '0', BIND_HOST: '127.0.0.1', GATEWAY_URL: 'http://127.0.0.1:9', PUBLIC_URL: 'https://git.example.com' });
  const service = createServer(config);
  const ports = await service.start();
  base = `http://127.0.0.1:${ports.httpPort}`;
  stop = () => service.stop();
});

afterAll(async () => {
  await stop?.();
});

describe('gitea-api service', () => {
  it('when asked the version, then Gitea\'s ServerVersion', async () => {
    const res = await fetch(`${base}/api/v1/version`);
    expect([res.status, await res.json()]).toEqual([200, { version: '1.22.6' }]);
  });

  it('when a route is unknown, inside /api/v1 or not, then 404 in Gitea\'s error shape with the swagger url', async () => {
    for (const path of ['/api/v1/nothing/here', '/elsewhere']) {
      const res = await fetch(`${base}${path}`);
      expect([res.status, await res.json()]).toEqual([404, { message: 'not found', url: 'https://git.example.com/api/swagger' }]);
    }
  });

  it('when /user is asked without a credential or with a foreign scheme, then 401 in Gitea\'s shape', async () => {
    const anonymous = await fetch(`${base}/api/v1/user`);
    expect([anonymous.status, await anonymous.json()]).toEqual([401, { message: 'token is required', url: 'https://git.example.com/api/swagger' }]);
    const digest = await fetch(`${base}/api/v1/user`, { headers: { authorization: 'Digest abc' } });
    expect([digest.status, await digest.json()]).toEqual([401, { message: 'unsupported Authorization scheme', url: 'https://git.example.com/api/swagger' }]);
  });

  it('when the API behind does not answer, then 503 in Gitea\'s shape, never a 500', async () => {
    const res = await fetch(`${base}/api/v1/user`, { headers: { authorization: 'token abc' } });
    expect([res.status, await res.json()]).toEqual([503, { message: 'Service unavailable', url: 'https://git.example.com/api/swagger' }]);
  });
});
