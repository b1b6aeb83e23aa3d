import http, { type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import https, { type Agent as HttpsAgent } from 'node:https';
import { performance } from 'node:perf_hooks';
import { parseRetryAfter, type AttemptOutcome } from '../domain/retry-policy.js';
import { guardedLookup, REFUSED_CODE, refuseLiteralAddress } from './guarded-lookup.js';

/** How much of a receiver's answer is kept (CONTRACT §7): enough to debug, never a whole download. */
export const MAX_RESPONSE_BODY_BYTES = 4096;

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** The worker's own agents: webhook sockets are never shared with other clients in the process
   *  (the embedded mode runs every service in one), and their number stays bounded. */
  agent?: { http?: HttpAgent; https?: HttpsAgent };
}

export interface SendResult {
  outcome: AttemptOutcome;
  responseBody: string | null;
  durationMs: number;
}

/**
 * One POST to a receiver, with node's own http client (README "Performance": got's option
 * handling cost more CPU per delivery than the request itself). Never throws: every way it can
 * end is an outcome for the retry policy. Redirects are not followed and bodies not decompressed
 * (node's client does neither). The body is read only up to MAX_RESPONSE_BODY_BYTES and the whole
 * exchange is bounded by the timeout, so a receiver that streams forever or never answers cannot
 * hold a worker slot. The SSRF guard is the socket's `lookup`: every new connection is checked on
 * the addresses it dials; a kept-alive socket was checked when it connected.
 */
export async function sendDelivery(url: string, headers: Record<string, string>, body: string, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { outcome: { kind: 'network', error: `Invalid URL: ${url}` }, responseBody: null, durationMs: elapsed() };
  }
  if (!opts.allowPrivate) {
    const refused = refuseLiteralAddress(url);
    if (refused) return { outcome: { kind: 'refused', error: refused }, responseBody: null, durationMs: elapsed() };
  }
  const secure = target.protocol === 'https:';
  const payload = Buffer.from(body, 'utf8');

  return new Promise<SendResult>((resolve) => {
    let status: number | undefined;
    let retryAfterSeconds: number | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let req: http.ClientRequest | undefined;

    const finish = (error?: Error & { code?: string }, drop = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A body cut short (size cap, timeout) leaves the socket mid-response: it cannot be reused.
      if (drop) req?.destroy();
      const responseBody = status === undefined ? null : decodeBody(Buffer.concat(chunks));
      let outcome: AttemptOutcome;
      if (status !== undefined) {
        // The receiver answered; a body cut short by the timeout does not change its answer.
        outcome = { kind: 'response', status, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
      } else if (error && isRefusal(error)) {
        outcome = { kind: 'refused', error: refusalMessage(error) };
      } else {
        outcome = { kind: 'network', error: error?.message ?? 'Connection closed without a response' };
      }
      resolve({ outcome, responseBody, durationMs: elapsed() });
    };
    // The message names the limit as got did, so logs and attempt records read the same as before.
    const timer = setTimeout(() => finish(Object.assign(new Error(`Timeout awaiting 'request' for ${opts.timeoutMs}ms`), { code: 'ETIMEDOUT' }), true), opts.timeoutMs);

    const onResponse = (res: IncomingMessage) => {
      status = res.statusCode;
      retryAfterSeconds = parseRetryAfter(res.headers['retry-after']);
      res.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_BODY_BYTES - size;
        if (room > 0) {
          const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
          chunks.push(part);
          size += part.length;
        }
        if (size >= MAX_RESPONSE_BODY_BYTES) finish(undefined, true);
      });
      res.on('end', () => finish());
      res.on('aborted', () => finish(undefined, true));
      res.on('error', (err: Error) => finish(err, true));
      res.on('close', () => finish(undefined, true));
    };
    try {
      const options: https.RequestOptions = {
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        ...(opts.allowPrivate ? {} : { lookup: guardedLookup }),
      };
      const agent = secure ? opts.agent?.https : opts.agent?.http;
      if (agent) options.agent = agent;
      req = secure ? https.request(target, options, onResponse) : http.request(target, options, onResponse);
    } catch (err) {
      finish(err as Error);
      return;
    }
    req.on('error', (err: Error) => finish(err, true));
    req.end(payload);
  });
}

function isRefusal(err: Error & { code?: string; cause?: unknown }): boolean {
  return err.code === REFUSED_CODE || (err.cause as { code?: string } | undefined)?.code === REFUSED_CODE;
}

function refusalMessage(err: Error & { cause?: unknown }): string {
  const cause = err.cause as Error | undefined;
  return cause?.message ?? err.message;
}

/** Text for the attempt record: lossy UTF-8, without NUL bytes (Postgres text cannot hold them). */
function decodeBody(buf: Buffer): string {
  return buf.toString('utf8').replace(/\0/g, '');
}
