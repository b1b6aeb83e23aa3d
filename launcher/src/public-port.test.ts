import { describe, expect, it } from '@jest/globals';
import { bindPublicPort, boundPort, reserveLoopbackPort } from './public-port.js';

describe('public port', () => {
  it('when bound on port 0, then the real port is held and answers 503 JSON until the gateway takes over', async () => {
    const server = await bindPublicPort(0, '127.0.0.1');
    try {
      const port = boundPort(server);
      expect(port).toBeGreaterThan(0);
      const res = await fetch(`http://127.0.0.1:${port}/api/user`);
      expect([res.status, await res.json()]).toEqual([503, { error: 'Service unavailable' }]);
      await expect(bindPublicPort(port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('when a port is reserved, then nobody else can bind it until it is released, and then it is free', async () => {
    const reserved = await reserveLoopbackPort();
    expect(reserved.port).toBeGreaterThan(0);
    await expect(bindPublicPort(reserved.port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await reserved.release();
    await reserved.release(); // twice is harmless
    const server = await bindPublicPort(reserved.port, '127.0.0.1');
    expect(boundPort(server)).toBe(reserved.port);
    await new Promise<void>((done) => server.close(() => done()));
  });
});
