import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';

export interface ReceivedDelivery<B = Record<string, unknown>> {
  path: string;
  method: string;
  /** The X-GitHost-Event header. */
  event: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The body as sent, as text. */
  text: string;
  /** The body parsed as JSON; `{}` when it is not JSON (the assertion on it shows the mismatch). */
  body: B;
  /** X-Hub-Signature-256 checked with @octokit/webhooks-methods against the receiver's secret;
   *  null without a signature, false with one but no secret to check it against. */
  signatureValid: boolean | null;
}

/** How the receiver answers its n-th request (0-based). */
export type Answer = (n: number, res: ServerResponse, delivery: ReceivedDelivery<unknown>) => void;

export interface ReceiverOptions {
  secret?: string | null;
  /** Default: 200 with body `ok`. */
  answer?: Answer;
}

export interface Receiver<B = Record<string, unknown>> {
  /** Base URL (`http://127.0.0.1:<port>`); append a path to tell webhooks apart. */
  url: string;
  received: ReceivedDelivery<B>[];
  close(): Promise<void>;
}

/** An answer without a body whose status depends on the request path; 204 by default. */
export function statusByPath(statusFor: (path: string) => number = () => 204): Answer {
  return (_n, res, delivery) => void res.writeHead(statusFor(delivery.path)).end();
}

/** A real HTTP receiver on 127.0.0.1 that records every delivery and verifies its signature. */
export async function startReceiver<B = Record<string, unknown>>(options: ReceiverOptions = {}): Promise<Receiver<B>> {
  const secret = options.secret ?? null;
  const answer = options.answer ?? ((_n, res) => void res.writeHead(200).end('ok'));
  const received: ReceivedDelivery<B>[] = [];
  let count = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = count++;
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      const signature = req.headers['x-hub-signature-256'];
      const record = async () => {
        const signatureValid = typeof signature === 'string' && secret !== null ? await verify(secret, text, signature) : signature === undefined ? null : false;
        let body = {} as B;
        try {
          body = JSON.parse(text) as B;
        } catch {
          // kept empty: see ReceivedDelivery.body
        }
        const delivery: ReceivedDelivery<B> = { path: req.url ?? '', method: req.method ?? '', event: String(req.headers['x-githost-event']), headers: req.headers, raw, text, body, signatureValid };
        received.push(delivery);
        answer(n, res, delivery);
      };
      void record();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
