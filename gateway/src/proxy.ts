import { Agent, ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createProxyMiddleware, debugProxyErrorsPlugin, proxyEventsPlugin } from 'http-proxy-middleware';
import type { RequestHandler } from 'express';
import type { Logger } from '@githost/logging';
import { rememberUpstreamRequest } from './body-timeout.js';

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

/**
 * Forwards the request unchanged (same path, headers as the gateway left them) and streams both
 * bodies: nothing is parsed or buffered here, gzip passes through as it came. An upstream that
 * cannot be reached answers 503 JSON, never the proxy library's HTML or a hang.
 */
export function upstreamProxy(name: string, opts: UpstreamProxyOptions): RequestHandler {
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
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
      // A body the client stops sending tears this request down with it (body-timeout.ts).
      proxyReq: (proxyReq, req) => rememberUpstreamRequest(req, proxyReq),
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
      error: (err, _req, res) => {
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
        res.statusCode = 503;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ error: 'Service unavailable' }));
      },
    },
  }) as unknown as RequestHandler;
}
