import http from 'node:http';
import https from 'node:https';

/** An answer read whole: the API's JSON answers are small (lists are paged, blobs bounded). */
export interface WholeAnswer {
  status: number;
  text: string;
  /** The answer's validator, when it has one (browse reads: docs/decisions/browse-refs.md). */
  etag?: string | undefined;
  /** A paged list's `X-Total-Count`, when it has one. */
  totalCount?: number | undefined;
  /** A cursor-paged list's `Link` header (docs/decisions/list-paging.md), when it has one. */
  link?: string | undefined;
}

// One pool of kept-alive connections to the gateway for the process: node's own client costs
// about half the CPU of fetch per call (bench "Web pages"), and a page makes several. An idle one
// is dropped after 60 s (or a second before the server's announced Keep-Alive timeout), before a
// load balancer in front of the gateways drops it (haproxy's 75 s, launcher/src/replicas.ts): a
// POST is then never written on a connection being closed.
const IDLE_MS = 60_000;
const AGENTS = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo', timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo', timeout: IDLE_MS }),
};

/**
 * One request over the pool. A GET whose kept-alive connection the gateway had just closed is
 * sent once more on a fresh one (nothing was done for it); any other failure is the caller's.
 */
export function requestWhole(url: string, init: { method: string; headers: Record<string, string>; body?: string | undefined; timeoutMs: number }): Promise<WholeAnswer> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  const agent = target.protocol === 'https:' ? AGENTS['https:'] : AGENTS['http:'];
  // node frames a body by chunks only for methods it expects one with: a DELETE's body would go
  // unframed, and the gateway would read it as the next request on the kept-alive connection.
  const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
  const once = (retried: boolean): Promise<WholeAnswer> =>
    new Promise((resolve, reject) => {
      const req = client.request(target, { method: init.method, headers, agent, timeout: init.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        const total = res.headers['x-total-count'];
        const totalCount = typeof total === 'string' && /^\d+$/.test(total) ? Number(total) : undefined;
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), etag: res.headers.etag, totalCount, link: typeof res.headers.link === 'string' ? res.headers.link : undefined }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (!retried && req.reusedSocket && init.method === 'GET' && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) resolve(once(true));
        else reject(err);
      });
      req.end(init.body);
    });
  return once(false);
}
