import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { answerRequestTimeout } from '@githost/http';
import { upstreamRequestOf } from '../forwarding/proxy.js';
import { hasBody } from './body-encoding.js';

/** GITHOST_BODY_TIMEOUT_MS: the longest a request body may go without a byte (docs/security.md#malformed-requests). */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/**
 * Every public route: a request body that goes silent for `timeoutMs` is the client's fault, so it
 * answers 408 (and closes the connection) instead of holding it until an upstream gives up with a
 * 503. The upstream request is torn down with it, so a service sees an aborted request (git
 * removes the push's quarantine). Silence is counted on the client's connection (node resets its
 * timer on every read), and only while the gateway waits for the client: a body the gateway has
 * not passed on yet (an upstream slow to read) never counts against the client. Headers keep
 * node's own limit (headersTimeout, 408 by `answerOversizedRequests`).
 */
export function limitBodySilence(timeoutMs: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (timeoutMs <= 0 || req.complete || !hasBody(req)) return next();
    // On the request, not the socket: node's own socket listener then leaves the socket to us
    // (with nobody listening on the request, it destroys the socket, and the client gets no answer).
    const onTimeout = (): void => {
      // Bytes the gateway holds and has not passed on: the wait is upstream's, not the client's.
      if (req.readableLength > 0) {
        req.setTimeout(timeoutMs);
        return;
      }
      stop();
      answerTimedOut(req, res);
    };
    const stop = (): void => {
      req.off('timeout', onTimeout);
      req.off('end', bodyRead);
      res.off('finish', stop);
    };
    // Past the answer, node's keep-alive timer owns the socket; once the whole body is in, nothing does.
    const bodyRead = (): void => {
      stop();
      req.socket.setTimeout(0);
    };
    req.setTimeout(timeoutMs);
    req.on('timeout', onTimeout);
    req.once('end', bodyRead);
    res.once('finish', stop);
    next();
  };
}

function answerTimedOut(req: IncomingMessage, res: ServerResponse): void {
  upstreamRequestOf(req)?.destroy();
  if (res.headersSent) {
    // An answer already under way cannot turn into a 408: cutting it is the only signal left.
    req.socket.destroy();
    return;
  }
  answerRequestTimeout(res);
}
