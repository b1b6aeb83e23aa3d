import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { bindingPort } from '@githost/config/errors';
import type { MetricsEndpoint } from '@githost/http';
import { requestDurationHistogram } from '@githost/http/request-metrics';
import { httpLogger, type Logger } from '@githost/logging';
import { isStopping } from '@githost/runtime/stopping';

/** A dependency's check for /readyz: true when it answers; false or a rejection when not. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

export interface InternalHttpOptions {
  service: string;
  logger: Logger;
  registry: client.Registry;
  ready: ReadinessChecks;
  /** GET routes answered with the JSON their function returns. */
  routes: Record<string, () => unknown>;
}

/** Metrics registry of this service, labelled as every service's is. */
export { createRegistry } from '@githost/http/request-metrics';

/**
 * The SSH service's internal HTTP port on a bare node:http handler: /healthz, /readyz and its
 * few GET routes, with the request log lines and the `githost_<service>_http_request_duration_seconds`
 * histogram every service's express app has (@githost/http createHttpApp), JSON answers and the
 * JSON 404. Four routes do not need express, whose loading costs this process 5 MiB
 * (docs/decisions/ssh-server.md#memory).
 */
export function internalHttpHandler(opts: InternalHttpOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const duration = requestDurationHistogram(opts.service, opts.registry);
  const logRequest = httpLogger(opts.logger);
  let lastFailing = '';

  async function answer(req: IncomingMessage, path: string): Promise<{ status: number; body: unknown }> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 404, body: { error: 'Not found' } };
    if (path === '/healthz') return { status: 200, body: { status: 'ok' } };
    if (path === '/readyz') {
      // A stopping process is out of rotation while it drains (docs/operating.md#stopping-a-process).
      const entries = isStopping() ? [] : Object.entries(opts.ready);
      const answers = await Promise.all(entries.map(([, check]) => check().catch(() => false)));
      const failing = isStopping() ? ['stopping'] : entries.filter((_, i) => !answers[i]).map(([name]) => name);
      // Logged when the set changes, so a probe every few seconds does not repeat it.
      const key = failing.join(',');
      if (key !== lastFailing) {
        if (failing.length) opts.logger.warn({ failing }, 'not ready');
        else opts.logger.info('ready again');
        lastFailing = key;
      }
      return failing.length ? { status: 503, body: { status: 'unavailable', failing } } : { status: 200, body: { status: 'ready' } };
    }
    const route = opts.routes[path];
    return route ? { status: 200, body: route() } : { status: 404, body: { error: 'Not found' } };
  }

  return (req, res) => {
    logRequest(req, res);
    const path = (req.url ?? '/').split('?')[0]!;
    const known = path === '/healthz' || path === '/readyz' || path in opts.routes;
    const end = duration.startTimer({ method: req.method });
    res.on('finish', () => end({ route: known ? path : 'unmatched', status: String(res.statusCode) }));
    // The body of a request nobody reads is drained, so a kept-alive connection carries on.
    req.resume();
    answer(req, path).then(
      ({ status, body }) => sendJson(res, status, body),
      (err: unknown) => {
        opts.logger.error({ err }, 'request failed');
        sendJson(res, 500, { error: 'Internal error' });
      },
    );
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export interface Listening {
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (a taken one is the one line every taken port gets, naming `variable`). */
export function listenHttp(variable: string, handler: (req: IncomingMessage, res: ServerResponse) => void, port: number, host: string): Promise<Listening> {
  return bindingPort(
    variable,
    port,
    () =>
      new Promise<Listening>((resolve, reject) => {
        const server: Server = createServer(handler);
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve({
            port: (server.address() as AddressInfo).port,
            close: () =>
              new Promise<void>((done) => {
                server.close(() => done());
                server.closeIdleConnections();
                setTimeout(() => server.closeAllConnections(), 1_000).unref();
              }),
          });
        });
      }),
  );
}

/** GET /metrics of `registry` on its own port (METRICS_PORT), or on the launcher's shared endpoint (one process). */
export async function serveMetrics(registry: client.Registry, port: number, host: string, shared: MetricsEndpoint | undefined): Promise<Listening> {
  if (shared) return shared.add(registry);
  return listenHttp(
    'METRICS_PORT',
    (req, res) => {
      req.resume();
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return sendJson(res, 404, { error: 'Not found' });
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': client.Registry.PROMETHEUS_CONTENT_TYPE });
          res.end(text);
        },
        () => sendJson(res, 500, { error: 'Internal error' }),
      );
    },
    port,
    host,
  );
}
