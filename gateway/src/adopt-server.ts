import type { RequestListener, Server } from 'node:http';
import { listening, type Listening } from '@githost/http';

/**
 * Serves `app` on a server that is already listening. The launcher binds the public port before
 * the services start (they need the gateway's URL for clone URLs), and keeps it bound, so no
 * other process can take the port between choosing it and serving on it.
 */
export function adoptServer(server: Server, app: RequestListener): Listening {
  const adopted = listening(server);
  server.removeAllListeners('request');
  server.on('request', app);
  return adopted;
}
