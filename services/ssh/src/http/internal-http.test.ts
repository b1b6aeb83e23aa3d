import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@githost/logging';
import { markStopping } from '@githost/runtime/stopping';
import { createRegistry, internalHttpHandler, listenHttp } from './internal-http.js';

describe('the SSH service internal HTTP port', () => {
  it('when asked, then health, readiness by its checks, its routes and JSON 404s answer, each request timed, and a stopping process is not ready', async () => {
    let accountsReady = false;
    const registry = createRegistry('ssh');
    const handler = internalHttpHandler({
      service: 'ssh',
      logger: createLogger('ssh', 'silent'),
      registry,
      ready: { accounts: async () => accountsReady, 'git-storage': async () => true },
      routes: { '/host-keys': () => ({ keys: ['ed25519'] }) },
    });
    const server = await listenHttp('SSH_HTTP_PORT', handler, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${server.port}`;
    const get = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${base}${path}`, init);
      return { status: res.status, body: (await res.json()) as unknown };
    };
    try {
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'unavailable', failing: ['accounts'] } });
      accountsReady = true;
      expect(await get('/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
      expect(await get('/host-keys?x=1')).toEqual({ status: 200, body: { keys: ['ed25519'] } });
      expect(await get('/nope')).toEqual({ status: 404, body: { error: 'Not found' } });
      expect(await get('/host-keys', { method: 'POST', body: 'ignored' })).toEqual({ status: 404, body: { error: 'Not found' } });
      markStopping();
      expect(await get('/readyz')).toEqual({ status: 503, body: { status: 'unavailable', failing: ['stopping'] } });
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
      const metrics = await registry.metrics();
      expect(metrics).toContain('githost_ssh_http_request_duration_seconds_count{service="ssh",method="GET",route="/readyz",status="503"} 2');
      expect(metrics).toContain('githost_ssh_http_request_duration_seconds_count{service="ssh",method="GET",route="unmatched",status="404"} 1');
    } finally {
      await server.close();
    }
  });
});
