import { Transform, type Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';

/** 1 MiB for API JSON (CONTRACT §4); git transport has no limit. */
export const API_BODY_LIMIT = 1024 * 1024;

/** A declared Content-Length over the limit is refused before a byte is read. */
export function declaredTooLarge(req: IncomingMessage, limit = API_BODY_LIMIT): boolean {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) && declared > limit;
}

/** A body of unknown length (chunked) has to be counted as it streams through. */
export function hasStreamedBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined && req.headers['content-length'] === undefined;
}

/**
 * Counts a chunked body while it streams to the upstream, without buffering it. The proxy reads
 * the body with `req.pipe(upstream)`, so the count is spliced in there; past the limit the
 * upstream request is torn down (the service never sees a partial body as complete) and
 * `onTooLarge` answers the client.
 */
export function limitStreamedBody(req: IncomingMessage, onTooLarge: () => void, limit = API_BODY_LIMIT): void {
  const pipe = req.pipe.bind(req);
  let seen = 0;
  req.pipe = (<T extends NodeJS.WritableStream>(destination: T): T => {
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        seen += chunk.length;
        if (seen > limit) callback(new Error('body over the limit'));
        else callback(null, chunk);
      },
    });
    counter.once('error', () => {
      req.unpipe(counter);
      onTooLarge();
      (destination as unknown as Writable).destroy();
    });
    pipe(counter);
    return counter.pipe(destination);
  }) as typeof req.pipe;
}
