import { createServer, type Server } from 'node:http';

/**
 * Binds the public port before any service starts and keeps it: the services need the gateway's
 * URL (clone URLs) before the gateway exists, and a port chosen, released and bound again later
 * can be taken by another process in between (an e2e run failed with EADDRINUSE that way).
 * Until the gateway takes the server over, every request answers 503, as a starting service does.
 */
export function bindPublicPort(port: number, host = '0.0.0.0'): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      res.end(JSON.stringify({ error: 'Service unavailable' }));
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

export function boundPort(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export interface ReservedPort {
  port: number;
  /** Frees the port for the service that is about to bind it. */
  release(): Promise<void>;
}

/**
 * A free loopback port, held (bound) until release(): a service that must be reachable before it
 * starts gets it, and holding it until that service binds keeps the window in which another
 * process could take it as short as the service's own start.
 */
export async function reserveLoopbackPort(): Promise<ReservedPort> {
  const server = await bindPublicPort(0, '127.0.0.1');
  let released: Promise<void> | undefined;
  return {
    port: boundPort(server),
    release: () => (released ??= new Promise<void>((done) => server.close(() => done()))),
  };
}
