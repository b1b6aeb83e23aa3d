import { Agent, ServerResponse, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { PassError, UpstreamHandler } from './forward.js';
import type { Logger } from '@githost/logging';
import { sendRefusal } from '../refusals.js';
import { ReadRetries } from './read-retry.js';

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
  /** Counts a read sent once more after its connection failed unanswered (read-retry.ts). */
  onRetry?: () => void;
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
  const proxyThrough = (agent: Agent | false) =>
    createProxyMiddleware<IncomingMessage, ServerResponse>({
      target: opts.target,
      router: opts.router,
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
          if (res instanceof ServerResponse && retries.claim(err, req, res, upstreamRequestOf(req))) {
            opts.onRetry?.();
            opts.logger.warn({ upstream: name, method: req.method, code: (err as NodeJS.ErrnoException).code, err }, 'upstream connection failed before any answer: sending the read once more on a new connection');
            X_FORWARDED.forEach((header, i) => {
              const value = forwardedOf.get(req)?.[i];
              if (value === undefined) delete req.headers[header];
              else req.headers[header] = value;
            });
            void retry(req, res, nextOf.get(req));
            return;
          }
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
        },
      },
    });
  const proxy = proxyThrough(opts.agent);
  // The second try takes a connection of its own (closed after it): another idle one in the pool
  // may be just as dead, when the service restarted or the replica behind it died.
  const retry = proxyThrough(false);
  return (req, res, next) => {
    nextOf.set(req, next);
    forwardedOf.set(req, X_FORWARDED.map((header) => req.headers[header]));
    return proxy(req, res, next);
  };
}
