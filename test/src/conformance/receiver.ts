import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown>;
}

export interface Receiver {
  /** Base URL; deliveries are told apart by the path each webhook was registered with. */
  url: string;
  received: Delivery[];
  close(): Promise<void>;
}

/** A real local HTTP receiver that records every request and answers 204, or what `statusFor`
 *  says for the request's path. */
export async function startReceiver(statusFor: (path: string) => number = () => 204): Promise<Receiver> {
  const received: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        // kept empty: the assertion on the body shows the mismatch
      }
      received.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, raw, body });
      res.writeHead(statusFor(req.url ?? '')).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** Polls until `check` returns a value (deliveries and activity run in the background). */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
