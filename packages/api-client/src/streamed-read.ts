import { goesToFallback } from './http-client.js';
import { partnerDownError, type PartnerCheck } from './partner-check.js';

/** What a streamed read of the gateway needs besides its path. */
export interface StreamedRead {
  /** The gateway called first (a replica's own, or the only one). */
  url: string;
  /** Every gateway behind the load balancer, for a replica paired with its own (WholeRequest.fallbackUrl). */
  fallbackUrl?: string | undefined;
  /** The own gateway's health check (WholeRequest.partner). */
  partner?: PartnerCheck | undefined;
  headers: Record<string, string>;
  /** The whole exchange's bound, the answer's bytes included. */
  timeoutMs: number;
}

/**
 * A GET whose answer the caller reads as a stream (the web's raw file views, the face's raw and
 * contents bytes), by fetch, under the rules requestWhole follows for whole answers
 * (docs/decisions/replicas.md#a-partner-that-hangs): while the own gateway is marked down the read
 * goes straight to the fallback; refused or cut before any answer it goes there once; and still
 * waiting for its answer when the check marks the own gateway down, it is cut and sent there, so
 * a hung gateway costs a file view a few seconds, not the timeout. Once the answer has started it
 * is the caller's: a body that stops coming ends at `timeoutMs`.
 */
export async function streamedRead(path: string, opts: StreamedRead): Promise<Response> {
  const { url, fallbackUrl, partner } = opts;
  const send = async (base: string, watched: boolean): Promise<Response> => {
    const cut = new AbortController();
    const signal = AbortSignal.any([AbortSignal.timeout(opts.timeoutMs), cut.signal]);
    // fetch rejects with the abort's reason, whose code sends the read to the fallback below.
    const answered = watched && partner !== undefined ? partner.whileUnanswered(() => cut.abort(partnerDownError())) : () => undefined;
    try {
      return await fetch(base + path, { headers: opts.headers, redirect: 'manual', signal });
    } finally {
      answered();
    }
  };
  if (fallbackUrl === undefined) return send(url, false);
  if (partner?.up === false) return send(fallbackUrl, false);
  try {
    return await send(url, true);
  } catch (err) {
    if (goesToFallback('GET', err)) return send(fallbackUrl, false);
    throw err;
  }
}
