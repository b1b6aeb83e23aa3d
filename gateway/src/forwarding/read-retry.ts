import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { PARTNER_DOWN } from '@githost/api-client/partner-check';
import { hasBody } from '../request-checks/body-encoding.js';

/**
 * How a connection fails when the service never took the request in: refused (nothing listens:
 * a dead or stopped replica), reset or closed unanswered (node's agent says ECONNRESET, "socket
 * hang up", for a kept-alive connection the service closed, or one whose process was killed),
 * or the request's write hitting a connection already closed (EPIPE); or cut by the gateway
 * before any answer because its health check marked that upstream down (PARTNER_DOWN,
 * proxy.ts's `partner`).
 */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', PARTNER_DOWN]);

/** Where each try's answer would arrive: its connection, and how much that connection had read before it. */
interface Attempt {
  socket?: Socket;
  bytesBefore: number;
}

/**
 * The rule haproxy applies behind the launcher (docs/decisions/replicas.md#a-replica-that-dies),
 * for the hop kube-proxy does not retry: a GET or HEAD without a body whose connection failed
 * before a single byte of the answer arrived is sent once more, on a new connection. Reading twice
 * changes nothing; any other method may already have pushed, merged or created something, so
 * only its client may decide to send it again.
 */
export class ReadRetries {
  private readonly attempts = new WeakMap<IncomingMessage, Attempt>();
  private readonly retried = new WeakSet<IncomingMessage>();

  /** Called with each try's upstream request once it has its connection (http-proxy's `proxyReq`
   *  event comes from the request's `socket` event), before anything is written on it. */
  track(proxyReq: ClientRequest, req: IncomingMessage): void {
    const attempt: Attempt = { bytesBefore: 0 };
    this.attempts.set(req, attempt);
    const started = (socket: Socket) => {
      attempt.socket = socket;
      // A kept-alive connection has read earlier answers: only bytes past those are this one's.
      attempt.bytesBefore = socket.bytesRead;
    };
    if (proxyReq.socket) started(proxyReq.socket);
    else proxyReq.once('socket', started);
  }

  /** Whether the failed try is sent again; true claims the one retry a request gets. */
  claim(err: NodeJS.ErrnoException, req: IncomingMessage, res: ServerResponse, proxyReq: ClientRequest | undefined): boolean {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (hasBody(req) || this.retried.has(req)) return false;
    if (err.code === undefined || !CONNECTION_FAILURES.has(err.code)) return false;
    // The gateway gave up on it itself (its inactivity timeout, the client went away): not the
    // service's connection failing, and the client is not waiting for a second try.
    if (proxyReq?.aborted === true || res.headersSent || res.writableEnded || res.destroyed) return false;
    const attempt = this.attempts.get(req);
    if (attempt?.socket && attempt.socket.bytesRead > attempt.bytesBefore) return false;
    this.retried.add(req);
    return true;
  }
}
