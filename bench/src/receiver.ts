import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { nowMs } from './stats.js';

export interface Arrival {
  at: number;
  status: number;
}

export interface DeliveryRecord {
  id: string;
  ref: string;
  arrivals: Arrival[];
}

/**
 * A local webhook target: records every attempt by `X-Githost-Delivery`, answers 200, or 500 to
 * the first attempt of every `failEvery`-th new delivery (the retry phase of the webhook bench).
 */
export class WebhookReceiver {
  readonly deliveries = new Map<string, DeliveryRecord>();
  failEvery = 0;
  /** Deliveries with at least one successful attempt. */
  succeeded = 0;

  private refPrefix = '';
  private phaseDeliveries = 0;

  /** A new phase: only deliveries for refs under `refPrefix` count (late ones of an earlier phase do not). */
  reset(failEvery: number, refPrefix: string): void {
    this.deliveries.clear();
    this.succeeded = 0;
    this.failEvery = failEvery;
    this.refPrefix = refPrefix;
    this.phaseDeliveries = 0;
  }

  private server = http.createServer((req, res) => this.handle(req, res));
  private listeners: Array<() => void> = [];

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Called after every arrival (the waiter re-checks its condition). */
  onArrival(fn: () => void): () => void {
    this.listeners.push(fn);
    return () => (this.listeners = this.listeners.filter((l) => l !== fn));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      const id = String(req.headers['x-githost-delivery'] ?? '');
      let ref = '';
      try {
        ref = String((JSON.parse(Buffer.concat(chunks).toString()) as { ref?: unknown }).ref ?? '');
      } catch {
        // recorded with an empty ref, which counts as unexpected
      }
      let record = this.deliveries.get(id);
      const isNew = record === undefined;
      if (!record) {
        record = { id, ref, arrivals: [] };
        this.deliveries.set(id, record);
      }
      const ours = ref.startsWith(this.refPrefix);
      if (isNew && ours) this.phaseDeliveries++;
      const fail = isNew && ours && this.failEvery > 0 && this.phaseDeliveries % this.failEvery === 0;
      const status = fail ? 500 : 200;
      if (ours && !fail && !record.arrivals.some((a) => a.status < 300)) this.succeeded++;
      record.arrivals.push({ at, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(fail ? 'try again' : 'ok');
      this.listeners.forEach((l) => l());
    });
  }
}
