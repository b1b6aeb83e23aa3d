import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { MAX_USER_AGENT_LENGTH, verifyClientForwarding, type ClientInfo } from '@githost/identity';

// Keyed by the request object: set only from a verified signature, never from a header a later
// step could read unchecked.
const forwarded = new WeakMap<IncomingMessage, ClientInfo>();

/**
 * docs/security.md#internal-calls, client forwarding: the web service calls the gateway for a browser and
 * vouches for the browser's address and user agent with a signature made with the internal
 * secret. A valid, fresh one is kept for this request; the headers themselves (valid or not) are
 * then dropped with every other client `x-githost-*` header by stripInternalHeaders, which runs
 * next.
 */
export function acceptClientForwarding(internalSecret: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    acceptForwardedClient(req, internalSecret);
    next();
  };
}

/** Keeps the client the request's forwarding signature vouches for, when it is valid and fresh. */
export function acceptForwardedClient(req: IncomingMessage, internalSecret: string): void {
  const client = verifyClientForwarding(req.headers, internalSecret);
  if (client) forwarded.set(req, client);
}

/** The client a request stands for: the one the web service vouched for, or the connection's
 *  own `address` (after `trust proxy`: express's `req.ip`) and user agent. */
export function clientOf(req: IncomingMessage, address: string): ClientInfo {
  const vouched = forwarded.get(req);
  if (vouched) return vouched;
  const agent = req.headers['user-agent'];
  return { address, user_agent: agent ? agent.slice(0, MAX_USER_AGENT_LENGTH) : null };
}
