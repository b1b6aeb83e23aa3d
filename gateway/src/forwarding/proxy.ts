import { Agent, ServerResponse, type ClientRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { NextFunction, RequestHandler } from 'express';
import type { Logger } from '@githost/logging';
import { sendRefusal } from '../refusals.js';

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
}

/** The upstream request each forwarded request went out as (its latest try). */
const upstreamRequests = new WeakMap<IncomingMessage, ClientRequest>();

export function upstreamRequestOf(req: IncomingMessage): ClientRequest | undefined {
  return upstreamRequests.get(req);
}

/**
 * A read that failed only because the kept-alive connection it was written on had been closed
 * by the service (a reset before any answer) is sent once more, as node's documentation advises
 * for `reusedSocket`; the dead connection has left the pool by then. GET and HEAD change nothing,
 * so a second try is safe, and a client never sees a 503 for another request's broken connection.
 */
function retriesOnFreshConnection(err: NodeJS.ErrnoException, req: IncomingMessage, res: ServerResponse, tried: WeakSet<IncomingMessage>): boolean {
  const read = req.method === 'GET' || req.method === 'HEAD';
  if (!read || err.code !== 'ECONNRESET' || res.headersSent || tried.has(req) || upstreamRequestOf(req)?.reusedSocket !== true) return false;
  tried.add(req);
  return true;
}

/**
 * Forwards the request unchanged (same path, headers as the gateway left them) and streams both
 * bodies: nothing is parsed or buffered here, gzip passes through as it came. An upstream that
 * cannot be reached answers 503 JSON, never the proxy library's HTML or a hang.
 */
export function upstreamProxy(name: string, opts: UpstreamProxyOptions): RequestHandler {
  const tried = new WeakSet<IncomingMessage>();
  const nextOf = new WeakMap<IncomingMessage, NextFunction>();
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: opts.target,
    router: opts.router,
    agent: opts.agent,
    xfwd: true,
    proxyTimeout: opts.timeoutMs,
    // The default plugins minus the logger, which builds a URL per request only to log it with a
    // no-op logger; the gateway's own request log already has the line.
    ejectPlugins: true,
    plugins: [debugProxyErrorsPlugin, proxyEventsPlugin],
    on: {
      // Kept so a body the client stops sending tears this request down (request-checks/body-timeout.ts), and
      // a reset on a reused connection is known as one.
      proxyReq: (proxyReq, req) => void upstreamRequests.set(req, proxyReq),
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
        if (res instanceof ServerResponse && retriesOnFreshConnection(err, req, res, tried)) {
          opts.logger.info({ upstream: name, err }, 'kept-alive upstream connection was closed: sending the read again');
          void proxy(req, res, nextOf.get(req));
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
  return (req, res, next) => {
    nextOf.set(req, next);
    return proxy(req, res, next);
  };
}
