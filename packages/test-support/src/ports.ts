import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP port free on 127.0.0.1 a moment ago, for a process that must be told its port before
 *  it starts (a child process, a restart on the same port). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
