import autocannon from 'autocannon';
import http from 'node:http';
import { nowMs, summarize, type Summary } from './stats.js';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  errors: number;
}

/** autocannon at `connections` for `seconds`: throughput and latency under load. */
export async function loadTest(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string> }): Promise<LoadResult> {
  const r = await autocannon({ url, connections: opts.connections, duration: opts.seconds, headers: opts.headers, timeout: 30 });
  const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]));
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, statuses, errors: r.errors + r.timeouts };
}

/**
 * One request at a time on one keep-alive connection: the unloaded latency, with sub-ms
 * resolution (autocannon's histogram is in whole milliseconds).
 */
export async function sequentialLatency(url: string, count: number, headers: Record<string, string> = {}): Promise<{ summary: Summary; statuses: Record<string, number> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  try {
    for (let i = 0; i < count; i++) {
      const start = nowMs();
      const status = await get(url, agent, headers);
      times.push(nowMs() - start);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  } finally {
    agent.destroy();
  }
  return { summary: summarize(times), statuses };
}

export function get(url: string, agent: http.Agent | undefined, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** A GET returning status, headers and body (for ETags and sanity checks). */
export function fetchOnce(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
