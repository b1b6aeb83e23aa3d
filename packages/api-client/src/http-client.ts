import http from 'node:http';
import https from 'node:https';
import { PARTNER_DOWN, partnerDownError, type PartnerCheck } from './partner-check.js';

/** An answer read whole: the API's JSON answers are small (lists are paged, blobs bounded). */
export interface WholeAnswer {
  status: number;
  text: string;
  /** The answer's validator, when it has one (browse reads: docs/decisions/browse-refs.md). */
  etag?: string | undefined;
  /** A paged list's `X-Total-Count`, when it has one. */
  totalCount?: number | undefined;
  /** A cursor-paged list's `Link` header (docs/decisions/list-paging.md), when it has one. */
  link?: string | undefined;
}

// One pool of kept-alive connections to the gateway for the process: node's own client costs
// about half the CPU of fetch per call (bench "Web pages"), and a page makes several. An idle one
// is dropped after 60 s (or a second before the server's announced Keep-Alive timeout), before a
// load balancer in front of the gateways drops it (haproxy's 75 s, launcher/src/replicas.ts): a
// POST is then never written on a connection being closed.
const IDLE_MS = 60_000;
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo', timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo', timeout: IDLE_MS }),
};

/** What a call to the gateway needs besides its URL. */
export interface WholeRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  timeoutMs: number;
  /**
   * The same request at the load-balanced address of every gateway, for a caller whose `url` is
   * one gateway of its own (the web's GATEWAY_FALLBACK_URL, docs/decisions/replicas.md#the-webs-own-gateway):
   * used when that gateway is not there (its connection refused: nothing was sent), and for a GET
   * also when its connection failed before any answer. A write is then sent on a connection of
   * its own, never on a kept-alive one the gateway may be closing as it stops, so it is never lost
   * half-sent and never sent twice.
   */
  fallbackUrl?: string | undefined;
  /**
   * The health check of `url`'s gateway (docs/decisions/replicas.md#a-partner-that-hangs): while it
   * is down a call goes straight to `fallbackUrl` (nothing was sent to the partner, so any method
   * may), and a GET still waiting on it when it is marked down is cut and sent there.
   */
  partner?: PartnerCheck | undefined;
}

/** A connection refused: nothing was sent. */
const NOT_SENT = new Set(['ECONNREFUSED']);
/** A connection that failed before any answer: refused, reset, closed (node's codes, and fetch's
 *  `UND_ERR_SOCKET` for a socket closed under it), or cut by us when its partner was marked down. */
const CUT_BEFORE_ANSWER = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', PARTNER_DOWN]);

/**
 * Whether a request its own gateway did not take goes to the fallback (WholeRequest.fallbackUrl;
 * docs/decisions/replicas.md#the-webs-own-gateway): a refused connection for any method, and for a
 * GET also one cut before any answer. `err` is node's (its `code`) or fetch's (its `cause.code`).
 */
export function goesToFallback(method: string, err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
  if (typeof code !== 'string') return false;
  return NOT_SENT.has(code) || (method === 'GET' && CUT_BEFORE_ANSWER.has(code));
}

/**
 * One request over the pool. A GET whose kept-alive connection the gateway had just closed is
 * sent once more on a fresh one (nothing was done for it); with a `fallbackUrl`, a request its
 * own gateway did not take goes there (see WholeRequest); any other failure is the caller's.
 */
export function requestWhole(url: string, init: WholeRequest): Promise<WholeAnswer> {
  // node frames a body by chunks only for methods it expects one with: a DELETE's body would go
  // unframed, and the gateway would read it as the next request on the kept-alive connection.
  const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
  const read = init.method === 'GET';
  const once = (target: URL, retried: boolean, ownConnection: boolean): Promise<WholeAnswer> =>
    new Promise((resolve, reject) => {
      const client = target.protocol === 'https:' ? https : http;
      const agent = ownConnection ? false : target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'];
      const req = client.request(target, { method: init.method, headers, agent, timeout: init.timeoutMs }, (res) => {
        answered();
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        const total = res.headers['x-total-count'];
        const totalCount = typeof total === 'string' && /^\d+$/.test(total) ? Number(total) : undefined;
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), etag: res.headers.etag, totalCount, link: typeof res.headers.link === 'string' ? res.headers.link : undefined }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
      // A read waiting on a partner that is marked down meanwhile is cut, and goes to the fallback.
      const answered = fallback && target !== fallback && read && init.partner ? init.partner.whileUnanswered(() => req.destroy(partnerDownError())) : () => undefined;
      req.on('close', answered);
      req.on('error', (err: NodeJS.ErrnoException) => {
        const code = err.code ?? '';
        if (!retried && req.reusedSocket && read && (code === 'ECONNRESET' || code === 'EPIPE')) resolve(once(target, true, ownConnection));
        else if (fallback && target !== fallback && goesToFallback(init.method, err)) resolve(once(fallback, false, ownConnection));
        else reject(err);
      });
      req.end(init.body);
    });
  const fallback = init.fallbackUrl === undefined ? undefined : new URL(init.fallbackUrl);
  // Marked down: new calls go straight to the fallback, as haproxy sends none to a server it took out.
  const first = fallback !== undefined && init.partner?.up === false ? fallback : new URL(url);
  return once(first, false, fallback !== undefined && !read);
}
