import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, refusalReason } from '../domain/address-policy.js';

export const REFUSED_CODE = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/** A target the SSRF guard will not connect to; the delivery fails at once with this message. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = REFUSED_CODE;
}

/**
 * A `lookup` for the socket: the address is checked when the connection is made, on exactly the
 * addresses it will dial, so a name that resolved to a public address when the webhook was
 * created and to 127.0.0.1 now (DNS rebinding) is still refused (CONTRACT §7, Gitea's host
 * matcher). Forbidden addresses are dropped; when none is left, the lookup fails.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  const opts = typeof options === 'object' && options !== null ? options : {};
  dns.lookup(hostname, { family: opts.family ?? 0, hints: opts.hints, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const allowed = addresses.filter((a) => classifyAddress(a.address) === 'public');
    if (allowed.length === 0) {
      const first = addresses[0];
      const reason = first ? refusalReason(hostname, first.address, classifyAddress(first.address)) : `Refused to deliver to ${hostname}: no address`;
      return callback(new RefusedAddressError(reason), '', 0);
    }
    if (opts.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, allowed);
    const chosen = allowed[0]!;
    callback(null, chosen.address, chosen.family);
  });
};

/** A URL whose host is a literal IP never reaches the lookup, so it is checked here. Null when allowed. */
export function refuseLiteralAddress(url: string): string | null {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0) return null;
  const cls = classifyAddress(host);
  return cls === 'public' ? null : refusalReason(host, host, cls);
}
