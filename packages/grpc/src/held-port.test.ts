import { createServer, type Server } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { holdUntilBound } from '@githost/runtime/held-ports';
import { startGrpcServer } from './index.js';

const listen = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

describe('a gRPC port held for this server (packages/runtime/src/held-ports.ts)', () => {
  it('when the server starts on a port held bound for it, then the holder frees it just before the bind and the server serves on it', async () => {
    const holder = await listen(0);
    const port = (holder.address() as { port: number }).port;
    let freed = false;
    holdUntilBound(port, async () => {
      await close(holder);
      freed = true;
    });
    const listening = await startGrpcServer(() => undefined, port, '127.0.0.1', [], 'grpc-test-internal-secret');
    try {
      expect([freed, listening.port]).toEqual([true, port]);
      await expect(listen(port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await listening.close(100);
    }
  });
});
