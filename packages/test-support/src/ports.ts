import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Ports this process handed out already. The kernel may give the port it just freed to the next
 * bind(0) (about one run in 150 of twelve calls here): two services told the same port would
 * race for it, and the loser's health probe would be answered by the winner.
 */
const handedOut = new Set<number>();

/** A TCP port free on 127.0.0.1 a moment ago and never handed out before in this process, for a
 *  process that must be told its port before it starts (a child process, a restart on the same port). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await boundAndFreed();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

function boundAndFreed(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
