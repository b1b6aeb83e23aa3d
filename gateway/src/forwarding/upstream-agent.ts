import { Agent } from 'node:http';

/**
 * The longest an idle connection to a service is kept when the service announces no keep-alive
 * timeout; also the inactivity after which node reports a busy one's `timeout` (nothing listens
 * for it on a proxied request, so that request goes on).
 */
export const UPSTREAM_SOCKET_TIMEOUT_MS = 60_000;

/**
 * The gateway's keep-alive connections to the services. node drops an idle connection one second
 * before the service's announced `Keep-Alive: timeout=5`, so a request is never written on a
 * connection the service is closing at that moment (answered by a reset: a read is sent again,
 * read-retry.ts, but a write could only be turned into a 503). node 20 applies that hint only
 * when the agent has a timeout of its own to compare it with: without one it keeps the
 * connection until the service closes it.
 */
export function createUpstreamAgent(): Agent {
  return new Agent({ keepAlive: true, maxFreeSockets: 64, timeout: UPSTREAM_SOCKET_TIMEOUT_MS });
}
