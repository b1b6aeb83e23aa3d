import type { Request } from 'express';
import { decodeIdentity, signClientForwarding, type ClientInfo } from '@githost/identity';

/**
 * The browser behind a page request, as the gateway signed it into the forwarded identity;
 * undefined when the request did not come through the gateway (the web is internal: then there is
 * no one to vouch for).
 */
export function browserOf(req: Request, internalSecret: string): ClientInfo | undefined {
  try {
    return decodeIdentity(req.headers, internalSecret).client;
  } catch {
    return undefined;
  }
}

/**
 * docs/security.md#internal-calls, client forwarding: the API calls the web makes for a page carry the
 * browser's address and user agent, signed, so the gateway counts rate limits and sign-in
 * failures against the browser and accounts records it on a new session, not the web's address.
 */
export function clientForwardingHeaders(req: Request, internalSecret: string): Record<string, string> {
  const client = browserOf(req, internalSecret);
  if (!client?.address) return {};
  return signClientForwarding(internalSecret, { address: client.address, userAgent: client.user_agent });
}
