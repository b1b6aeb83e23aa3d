import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { decodeIdentity, type Identity } from '@githost/identity';

/** What an upstream saw of one request. */
export interface Seen {
  upstream: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  identity: Identity | { error: string };
  body_bytes: number;
  body_sha256: string;
  /** False when the request body was cut off before its end. */
  complete: boolean;
}

/** A real HTTP server that answers every request with what it received, verifying the
 *  gateway-signed identity the way services do. */
export async function startEchoUpstream(name: string, secret: string): Promise<{ url: string; seen: Seen[]; streamsClosed(): number; close(): Promise<void> }> {
  const seen: Seen[] = [];
  let streamsClosed = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/alice/demo.git/git-upload-pack' && req.headers['x-test-stream'] === 'forever') {
      // An endless download, like a huge clone: ends only when the gateway hangs up.
      const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024, 'p')), 5);
      res.on('close', () => {
        clearInterval(timer);
        streamsClosed++;
      });
      return;
    }
    const hash = createHash('sha256');
    let bytes = 0;
    let identity: Seen['identity'];
    try {
      identity = decodeIdentity(req.headers, secret);
    } catch (err) {
      identity = { error: (err as Error).message };
    }
    const record = (complete: boolean): Seen => ({
      upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, identity,
      body_bytes: bytes, body_sha256: hash.copy().digest('hex'), complete,
    });
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    req.on('aborted', () => seen.push(record(false)));
    req.on('end', () => {
      const s = record(true);
      seen.push(s);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(s));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    streamsClosed: () => streamsClosed,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
