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
