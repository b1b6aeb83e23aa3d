import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** X-Hub-Signature-256 checked with @octokit/webhooks-methods against the receiver's secret; null without a signature. */
  signatureValid: boolean | null;
}

/** How the receiver answers its n-th request (0-based); the default answers 200. */
export type Behaviour = (n: number, res: ServerResponse) => void;

/** A real HTTP receiver on 127.0.0.1 that records every delivery and verifies its signature. */
export class Receiver {
  readonly received: Received[] = [];
  private server!: Server;
  url = '';

  constructor(
    private readonly secret: string | null = null,
    public behaviour: Behaviour = (_n, res) => void res.writeHead(200).end('ok'),
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const signature = req.headers['x-hub-signature-256'];
        const n = this.received.length;
        const record = async () => {
          const signatureValid = typeof signature === 'string' && this.secret !== null ? await verify(this.secret, body, signature) : signature === undefined ? null : false;
          this.received.push({ headers: req.headers, body, signatureValid });
          this.behaviour(n, res);
        };
        void record();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
