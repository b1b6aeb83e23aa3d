import { Agent, ServerResponse, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { PassError, UpstreamHandler } from './forward.js';
import type { Logger } from '@githost/logging';
import { partnerDownError, type PartnerCheck } from '@githost/api-client/partner-check';
import { sendRefusal } from '../refusals.js';
import { ReadRetries } from './read-retry.js';
import { API_BODY_LIMIT } from '../request-checks/body-limit.js';

export interface UpstreamProxyOptions {
  target: string;
  /** Per-request target (git transport: the repository's shard); throwing answers through the error handler. */
  router?: (req: IncomingMessage) => string;
  agent: Agent;
  logger: Logger;
  /** Upstream inactivity limit; absent for git transport, where a big clone may be quiet a while. */
  timeoutMs?: number;
  /** Called with the upstream's answer before any of it reaches the client, so state the answer
   *  makes stale (cached access) is dropped before the client can send its next request. */
  onResponse?: (req: IncomingMessage, proxyRes: IncomingMessage) => void;
  /** Counts a read sent once more after its connection failed unanswered (read-retry.ts), or a
   *  request sent to `fallbackTarget`. */
  onRetry?: () => void;
  /**
   * Where a request goes when `target` did not take it (the launcher's replicas: web N's own port
   * first, haproxy's web section behind it; docs/decisions/replicas.md#the-web-paired-with-its-gateway):
   * a refused connection for any method (nothing was sent), and a read cut before any answer by
   * read-retry.ts's rule. A write then goes to `target` on a connection of its own, never on a
   * kept-alive one the service may be closing, so it is never lost half-sent nor sent twice.
   */
  fallbackTarget?: string;
  /**
   * The health check of `target` when it has a fallback (docs/decisions/replicas.md#a-partner-that-hangs):
   * while it is down every new request goes straight to the fallback (nothing was sent to
   * `target`, so any method may), and a read still waiting on `target`, no byte of its answer
   * arrived, when it is marked down is cut and goes there by the read rule above.
   */
  partner?: PartnerCheck | undefined;
}

/** A write's body kept while it streams to `target`, to send it to the fallback if refused; bigger
 *  than the API's limit it is not kept, and such a write is not sent again. */
interface KeptBody {
  chunks: Buffer[];
  bytes: number;
  whole: boolean;
}

/** The headers http-proxy's `xfwd` writes into the request. */
const X_FORWARDED = ['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/** The upstream request each forwarded request went out as (its latest try). */
const upstreamRequests = new WeakMap<IncomingMessage, ClientRequest>();

export function upstreamRequestOf(req: IncomingMessage): ClientRequest | undefined {
  return upstreamRequests.get(req);
}

/**
 * Forwards the request unchanged (same path, headers as the gateway left them) and streams both
 * bodies: nothing is parsed or buffered here, gzip passes through as it came. An upstream that
 * cannot be reached answers 503 JSON, never the proxy library's HTML or a hang; a read whose
 * connection failed before any answer is first sent once more (read-retry.ts).
 */
export function upstreamProxy(name: string, opts: UpstreamProxyOptions): UpstreamHandler {
  const retries = new ReadRetries();
  const nextOf = new WeakMap<IncomingMessage, PassError>();
  // http-proxy appends to the request's own X-Forwarded-* headers (xfwd), so a second try starts
  // from the ones the request came with, or the service would read the client's address twice.
  const forwardedOf = new WeakMap<IncomingMessage, (string | string[] | undefined)[]>();
  const kept = new WeakMap<IncomingMessage, KeptBody>();
  // An upstream that cannot be reached: 503 JSON, or the connection cut once part of the answer is out.
  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
    opts.logger.warn({ upstream: name, err }, 'upstream request failed');
    if (!(res instanceof ServerResponse)) {
      (res as Socket).destroy();
      return;
    }
    // The gateway already answered (a body over the limit tore the upstream request down).
    if (res.writableEnded) return;
    if (res.headersSent) {
      // Part of the answer is already out: cutting the connection is the only honest signal.
      res.destroy();
      return;
    }
    sendRefusal(req, res, { message: 'Service unavailable', details: undefined }, 503);
  };
  const fallback = opts.fallbackTarget;
  const partner = fallback === undefined ? undefined : opts.partner;
  const proxyThrough = (agent: Agent | false, target = opts.target, router = opts.router, checked = false) =>
    createProxyMiddleware<IncomingMessage, ServerResponse>({
      target,
      router,
      agent,
      xfwd: true,
      proxyTimeout: opts.timeoutMs,
      // The default plugins minus the logger, which builds a URL per request only to log it with a
      // no-op logger; the gateway's own request log already has the line.
      ejectPlugins: true,
      plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
      on: {
        // Kept so a body the client stops sending tears this request down (request-checks/body-timeout.ts),
        // and so a failed try knows whether any of its answer had arrived.
        proxyReq: (proxyReq, req) => {
          upstreamRequests.set(req, proxyReq);
          retries.track(proxyReq, req);
          if (checked && partner && isRead(req)) {
            const answered = partner.whileUnanswered(() => proxyReq.destroy(partnerDownError()));
            proxyReq.once('response', answered);
            proxyReq.once('close', answered);
          }
        },
        proxyRes: (proxyRes, req, res) => {
          opts.onResponse?.(req, proxyRes);
          // A client that goes away mid-clone must stop the upstream too (its git process), not
          // leave it blocked on a full socket forever; pipe() alone never tells the source.
          res.on('close', () => {
            if (!res.writableFinished) proxyRes.destroy();
          });
          // And an upstream that dies mid-answer (a killed git-storage) must end the client's answer:
          // pipe() never ends the destination of a source that broke, so the client would hang.
          proxyRes.on('close', () => {
            if (!proxyRes.complete && !res.writableEnded) res.destroy();
          });
        },
        error: (err, req, res) => {
          const again = (body?: Buffer) => {
            opts.onRetry?.();
            opts.logger.warn({ upstream: name, method: req.method, code: (err as NodeJS.ErrnoException).code, err }, fallback === undefined ? 'upstream connection failed before any answer: sending the read once more on a new connection' : 'upstream connection failed before any answer: sending the request to the fallback');
            X_FORWARDED.forEach((header, i) => {
              const value = forwardedOf.get(req)?.[i];
              if (value === undefined) delete req.headers[header];
              else req.headers[header] = value;
            });
            // The body already streamed away to the refused connection: the fallback gets the copy.
            if (body !== undefined) req.pipe = (<T extends NodeJS.WritableStream>(destination: T): T => (destination.end(body), destination)) as typeof req.pipe;
            void retry(req, res as ServerResponse, nextOf.get(req));
          };
          if (res instanceof ServerResponse && retries.claim(err, req, res, upstreamRequestOf(req))) {
            again();
            return;
          }
          const body = kept.get(req);
          if (res instanceof ServerResponse && body !== undefined && (err as NodeJS.ErrnoException).code === 'ECONNREFUSED') {
            // Sent to the fallback once: if that fails too, it is answered as any failure.
            kept.delete(req);
            void wholeBody(req, body).then((whole) => {
              if (whole !== undefined && !res.headersSent && !res.writableEnded && !res.destroyed) again(whole);
              else unavailable(err, req, res);
            });
            return;
          }
          unavailable(err, req, res);
        },
      },
    });
  const proxy = proxyThrough(opts.agent, opts.target, opts.router, true);
  // The second try takes a connection of its own (closed after it): another idle one in the pool
  // may be just as dead, when the service restarted or the replica behind it died. With a
  // fallback, the second try is the fallback's.
  const retry = fallback === undefined ? proxyThrough(false) : proxyThrough(false, fallback, undefined);
  const write = fallback === undefined ? undefined : proxyThrough(false, opts.target, opts.router, true);
  // While the partner is marked down, as haproxy sends nothing to a server it took out.
  const direct = partner === undefined || fallback === undefined ? undefined : proxyThrough(opts.agent, fallback, undefined);
  return (req, res, next) => {
    nextOf.set(req, next);
    forwardedOf.set(req, X_FORWARDED.map((header) => req.headers[header]));
    if (direct !== undefined && partner?.up === false) return direct(req, res, next);
    if (write === undefined || isRead(req)) return proxy(req, res, next);
    keepBody(req, kept);
    return write(req, res, next);
  };
}

function isRead(req: IncomingMessage): boolean {
  return req.method === 'GET' || req.method === 'HEAD';
}

/** Keeps a copy of the body as the proxy pipes it (the data listener joins the pipe's, so no chunk
 *  is missed; a chunked body's count, body-limit.ts, stays spliced in). */
function keepBody(req: IncomingMessage, kept: WeakMap<IncomingMessage, KeptBody>): void {
  const body: KeptBody = { chunks: [], bytes: 0, whole: true };
  kept.set(req, body);
  const pipe = req.pipe.bind(req);
  req.pipe = (<T extends NodeJS.WritableStream>(destination: T): T => {
    const piped = pipe(destination);
    req.on('data', (chunk: Buffer) => {
      body.bytes += chunk.length;
      if (body.bytes > API_BODY_LIMIT) body.whole = false;
      if (body.whole) body.chunks.push(chunk);
      else body.chunks = [];
    });
    return piped;
  }) as typeof req.pipe;
}

/** The whole body of a write whose connection was refused, once it all arrived: the rest is still
 *  in the request's buffer (the refused connection held back the pipe) or on its way. Undefined
 *  when it was over the limit, or the client went away first. */
function wholeBody(req: IncomingMessage, body: KeptBody): Promise<Buffer | undefined> {
  const done = () => (body.whole ? Buffer.concat(body.chunks) : undefined);
  if (req.readableEnded) return Promise.resolve(done());
  return new Promise((resolve) => {
    req.once('end', () => resolve(done()));
    req.once('close', () => resolve(req.readableEnded ? done() : undefined));
    req.resume();
  });
}
