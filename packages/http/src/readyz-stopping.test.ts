import { describe, expect, it } from '@jest/globals';
import { createLogger } from '@githost/logging';
import { markStopping } from '@githost/runtime/stopping';
import { createHttpApp, finish, listen, route } from './index.js';

// Its own file: stopping is process-wide, and this test leaves the process stopping.
describe('readiness while the process stops', () => {
  it('when the process starts stopping, then /readyz is 503 naming "stopping" while requests are still served', async () => {
    const app = createHttpApp({ service: 'demo', logger: createLogger('demo', 'silent'), ready: { demo: async () => true } });
    app.get('/work', route((_req, res) => res.json({ done: true })));
    const server = await listen(finish(app), 0, '127.0.0.1');
    const base = `http://127.0.0.1:${server.port}`;
    try {
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      markStopping();
      const readyz = await fetch(`${base}/readyz`);
      expect(readyz.status).toBe(503);
      expect(await readyz.json()).toEqual({ status: 'unavailable', failing: ['stopping'] });
      // haproxy's check asks for its drain convention: out of rotation, not a server that failed.
      const asked = await fetch(`${base}/readyz?not_ready=404`);
      expect(asked.status).toBe(404);
      expect(await asked.json()).toEqual({ status: 'unavailable', failing: ['stopping'] });
      expect((await fetch(`${base}/readyz?not_ready=500`)).status).toBe(503);
      const work = await fetch(`${base}/work`);
      expect(work.status).toBe(200);
      expect(await work.json()).toEqual({ done: true });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      await server.close(100);
    }
  });
});
