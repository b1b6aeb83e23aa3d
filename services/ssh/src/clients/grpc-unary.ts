import http2 from 'node:http2';
import { AppError, kindOfGrpcCode, unavailable } from '@githost/errors';
import { INTERNAL_CALL_METADATA, signInternalCall } from '@githost/identity';

/** The metadata other services log a caller's request id from (@githost/grpc's REQUEST_ID_METADATA). */
const REQUEST_ID_METADATA = 'x-request-id';

export interface UnaryOptions {
  requestId?: string;
  timeoutMs: number;
}

/**
 * gRPC unary calls over node's own http2 (the gRPC over HTTP/2 protocol:
 * https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md), plaintext as every internal
 * call, each signed with the internal secret as @githost/protos' clients sign theirs. One
 * connection, opened on the first call and again after it closed, so a restarted accounts is
 * reached on the next call. The SSH service and OpenSSH mode's commands call accounts with this
 * instead of @grpc/grpc-js, whose loading is most of a node process's memory beyond its floor
 * (docs/decisions/ssh-server.md#memory). A status other than OK rejects with the AppError its code
 * maps to (packages/errors' table), as @githost/grpc's callUnary does.
 */
export class GrpcConnection {
  private session: http2.ClientHttp2Session | undefined;

  constructor(
    private readonly address: string,
    private readonly internalSecret: string,
  ) {}

  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = http2.connect(`http://${this.address}`);
    // Errors reach each call's stream; the session only has to be dropped so the next call reconnects.
    session.on('error', () => undefined);
    session.once('close', () => {
      if (this.session === session) this.session = undefined;
    });
    // Calls are rare (a connection's key lookup, a command's authorisation): no need to hold the process open.
    session.unref();
    this.session = session;
    return session;
  }

  /** Sends one message to `path` and resolves with the one message of the answer. */
  unary(path: string, message: Buffer, opts: UnaryOptions): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(err);
      };
      const timer = setTimeout(() => fail(unavailable(`accounts at ${this.address} did not answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.connect().request({
          ':method': 'POST',
          ':path': path,
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': `${opts.timeoutMs}m`,
          [INTERNAL_CALL_METADATA]: signInternalCall(path, this.internalSecret),
          ...(opts.requestId ? { [REQUEST_ID_METADATA]: opts.requestId } : {}),
        });
      } catch (err) {
        clearTimeout(timer);
        reject(unavailable(`accounts at ${this.address}: ${(err as Error).message}`, err));
        return;
      }
      const chunks: Buffer[] = [];
      let status: number | undefined;
      let statusMessage = '';
      const noteStatus = (headers: http2.IncomingHttpHeaders) => {
        if (headers['grpc-status'] === undefined) return;
        status = Number(headers['grpc-status']);
        statusMessage = decodeGrpcMessage(String(headers['grpc-message'] ?? ''));
      };
      stream.on('response', noteStatus);
      stream.on('trailers', noteStatus);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => fail(unavailable(`accounts at ${this.address}: ${err.message}`, err)));
      stream.on('end', () => {
        if (settled) return;
        try {
          if (status === undefined) throw unavailable(`accounts at ${this.address} answered without a gRPC status`);
          if (status !== 0) {
            const kind = kindOfGrpcCode(status);
            throw kind === 'unavailable' ? unavailable(`upstream unavailable: ${statusMessage}`.trim()) : new AppError(kind, statusMessage || 'upstream error');
          }
          const answer = messageOfBody(Buffer.concat(chunks));
          settled = true;
          clearTimeout(timer);
          resolve(answer);
        } catch (err) {
          fail(err as Error);
        }
      });
      stream.end(frame(message));
    });
  }

  /** Whether accounts accepts a connection within `withinMs` (the /readyz check). Never throws. */
  reachable(withinMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      let session: http2.ClientHttp2Session;
      try {
        session = this.connect();
      } catch {
        resolve(false);
        return;
      }
      if (session.connecting === false && !session.destroyed) {
        resolve(true);
        return;
      }
      const timer = setTimeout(() => done(false), withinMs);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        session.off('connect', onConnect);
        session.off('close', onClose);
        resolve(ok);
      };
      const onConnect = () => done(true);
      const onClose = () => done(false);
      session.once('connect', onConnect);
      session.once('close', onClose);
    });
  }

  close(): void {
    this.session?.close();
    this.session = undefined;
  }
}

/** A gRPC length-prefixed message: not compressed, 4-byte big-endian length, the message. */
export function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** The one message of a unary answer's body. */
function messageOfBody(body: Buffer): Buffer {
  if (body.length < 5) throw unavailable('accounts answered no message');
  if (body[0] !== 0) throw unavailable('accounts answered a compressed message');
  const length = body.readUInt32BE(1);
  if (body.length < 5 + length) throw unavailable('accounts answered a truncated message');
  return body.subarray(5, 5 + length);
}

/** grpc-message is percent-encoded (PROTOCOL-HTTP2.md); a malformed one is shown as sent. */
function decodeGrpcMessage(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
