import got, { type Agents, type Got } from 'got';
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
  agent?: Agents;
}

export interface SendResult {
  outcome: AttemptOutcome;
  responseBody: string | null;
  durationMs: number;
}

/**
 * The got instance a worker delivers with: the options every delivery shares are merged once here,
 * not on every request (got's per-request option handling is most of its cost per delivery).
 */
export function deliveryClient(opts: SendOptions): Got {
  const client = got.extend({
    timeout: { request: opts.timeoutMs },
    followRedirect: false,
    throwHttpErrors: false,
    retry: { limit: 0 },
    decompress: false,
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.allowPrivate ? {} : { dnsLookup: guardedLookup }),
    mutableDefaults: true,
  });
  // got builds each request's node options as `{ ...cacheOptions, <thirty-odd fields> }`. On Node
  // 20's V8 a non-empty object spread there (got's default holds four unset keys) makes that one
  // literal cost ~70 µs, more than the rest of the POST. Deliveries never use got's HTTP cache, so
  // its options are emptied once, here.
  client.defaults.options.cacheOptions = {};
  return client;
}

/**
 * One POST to a receiver. Never throws: every way it can end is an outcome for the retry policy.
 * The body is read only up to MAX_RESPONSE_BODY_BYTES and the whole exchange is bounded by the
 * timeout, so a receiver that streams forever or never answers cannot hold a worker slot.
 */
export async function sendDelivery(client: Got, url: string, headers: Record<string, string>, body: string, opts: Pick<SendOptions, 'allowPrivate'>): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!opts.allowPrivate) {
    const refused = refuseLiteralAddress(url);
    if (refused) return { outcome: { kind: 'refused', error: refused }, responseBody: null, durationMs: elapsed() };
  }
  const stream = client.stream.post(url, { body, headers });

  return new Promise<SendResult>((resolve) => {
    let status: number | undefined;
    let retryAfterSeconds: number | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;

    const finish = (error?: Error & { code?: string }) => {
      if (settled) return;
      settled = true;
      stream.destroy();
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

    stream.on('response', (res: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
      status = res.statusCode;
      retryAfterSeconds = parseRetryAfter(res.headers['retry-after']);
    });
    stream.on('data', (chunk: Buffer) => {
      const room = MAX_RESPONSE_BODY_BYTES - size;
      if (room > 0) {
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        size += part.length;
      }
      if (size >= MAX_RESPONSE_BODY_BYTES) finish();
    });
    stream.on('end', () => finish());
    stream.on('error', (err: Error) => finish(err));
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
