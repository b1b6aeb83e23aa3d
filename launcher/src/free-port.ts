import { createServer } from 'node:net';

/** A port free right now, for when the caller asks for port 0: services need the gateway's
 *  public URL (clone URLs) before the gateway itself starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
