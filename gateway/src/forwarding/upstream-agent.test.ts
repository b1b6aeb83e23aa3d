import { describe, expect, it } from '@jest/globals';
import { createServer, request, type Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUpstreamAgent } from './upstream-agent.js';

const freeSockets = (agent: Agent) => Object.values(agent.freeSockets).reduce((n, list) => n + (list?.length ?? 0), 0);

describe('createUpstreamAgent', () => {
  it('when a service announces a 5 s keep-alive, then the idle connection is dropped by the gateway before the service closes it', async () => {
    const server = createServer((_req, res) => res.end('ok')); // node's default: keepAliveTimeout 5 s
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = createUpstreamAgent();
    try {
      const { port } = server.address() as AddressInfo;
      const header = await new Promise<string>((resolve, reject) => {
        request({ host: '127.0.0.1', port, agent, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers['keep-alive'])));
        })
          .on('error', reject)
          .end();
      });
      expect(header).toBe('timeout=5');
      await new Promise((r) => setImmediate(r));
      expect(freeSockets(agent)).toBe(1);
      // Past the gateway's 4 s, before the service's 5 s.
      await new Promise((r) => setTimeout(r, 4_500));
      expect(freeSockets(agent)).toBe(0);
    } finally {
      agent.destroy();
      server.close();
    }
  }, 15_000);
});
