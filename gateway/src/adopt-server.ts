import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Listening } from '@githost/http';

/**
 * Serves `app` on a server that is already listening. The launcher binds the public port before
 * the services start (they need the gateway's URL for clone URLs), and keeps it bound, so no
 * other process can take the port between choosing it and serving on it.
 */
export function adoptServer(server: Server, app: RequestListener): Listening {
  const address = server.address() as AddressInfo | null;
  if (!address || typeof address !== 'object') throw new Error('adoptServer needs a listening server');
  server.removeAllListeners('request');
  server.on('request', app);
  return {
    server,
    port: address.port,
    close: (graceMs = 10_000) =>
      new Promise<void>((done) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          done();
        });
        server.closeIdleConnections();
      }),
  };
}
