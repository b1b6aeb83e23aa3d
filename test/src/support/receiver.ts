import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery<B = Record<string, unknown>> {
  path: string;
  method: string;
  /** The X-GitHost-Event header. */
  event: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  body: B;
}

export interface Receiver<B = Record<string, unknown>> {
  /** Base URL; deliveries are told apart by the path each webhook was registered with. */
  url: string;
  received: Delivery<B>[];
  close(): Promise<void>;
}

/** A real local HTTP receiver that records every request and answers 204, or what `statusFor`
 *  says for the request's path. */
export async function startReceiver<B = Record<string, unknown>>(statusFor: (path: string) => number = () => 204): Promise<Receiver<B>> {
  const received: Delivery<B>[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body = {} as B;
      try {
        body = JSON.parse(raw.toString('utf8')) as B;
      } catch {
        // kept empty: the assertion on the body shows the mismatch
      }
      received.push({ path: req.url ?? '', method: req.method ?? '', event: String(req.headers['x-githost-event']), headers: req.headers, raw, body });
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
