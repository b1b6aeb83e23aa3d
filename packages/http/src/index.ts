import express, { type ErrorRequestHandler, type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { bindingPort } from '@githost/config';
import { AppError, errorBody, httpStatusOf, kindOfHttpStatus, notFound, requestTimeout, toAppError } from '@githost/errors';
import { refuseNulInBody } from './nul.js';
import { createRegistry, requestDurationHistogram } from './request-metrics.js';
import { refuseDeepJson } from './json-depth.js';
import { decodeIdentity, type Identity } from '@githost/identity';
import { httpLogger, type Logger } from '@githost/logging';
import { isStopping } from '@githost/runtime/stopping';

export { express };
export { fieldWithNul, refuseNulInBody } from './nul.js';
export { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.js';
export { ifNoneMatchHits } from './if-none-match.js';
export { parseCursorPage, sendCursorPage, type CursorPageAnswer, type CursorPageRequest, type CursorStart } from './cursor-page.js';
export type { Express, Request, Response, NextFunction };

/** What a service's HTTP parser reads of a request line and headers (node's default is 16 KiB). */
export const SERVICE_HEADER_LIMIT = 64 * 1024;

/** 1 MiB for API JSON (CONTRACT §4). */
export const JSON_LIMIT = '1mb';

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  /** Verifies the gateway's signed identity on every route except health. */
  internalSecret?: string;
  /** Whether each dependency answers, by name; /readyz is 503, naming those that do not, until
   *  every one resolves true. */
  ready?: ReadinessChecks;
  /** Parse JSON bodies (off for services that stream bodies, such as git transport). */
  json?: boolean;
  registry?: client.Registry;
}

/** A dependency's check for /readyz: true when it answers; false or a rejection when not. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

/**
 * Runs every check at once and names the ones that failed, in the order given. An operator (and
 * a test that waits for readiness) sees which dependency holds the service out of rotation,
 * as Kubernetes' own /readyz?verbose lists its checks.
 */
async function failingChecks(checks: ReadinessChecks): Promise<string[]> {
  const entries = Object.entries(checks);
  const answers = await Promise.all(entries.map(([, check]) => check().catch(() => false)));
  return entries.filter((_, i) => !answers[i]).map(([name]) => name);
}

export { createRegistry } from './request-metrics.js';

/**
 * An express app with the shared edges: request ids and JSON logs, health, request metrics,
 * identity, JSON parsing with CONTRACT §4 errors. Add routes, then call `finish(app)`. The
 * metrics themselves are served on the metrics port (`serveMetrics`), never here (CONTRACT §8).
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const registry = opts.registry ?? createRegistry(opts.service);
  const duration = requestDurationHistogram(opts.service, registry);
  app.locals.registry = registry;

  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  let lastFailing = '';
  app.get('/readyz', async (req, res) => {
    // A stopping process is out of rotation while it drains (docs/operating.md#stopping-a-process).
    const failing = isStopping() ? ['stopping'] : opts.ready ? await failingChecks(opts.ready) : [];
    // Logged when the set changes, so a probe every few seconds does not repeat it.
    const key = failing.join(',');
    if (key !== lastFailing) {
      if (failing.length) opts.logger.warn({ failing }, 'not ready');
      else opts.logger.info('ready again');
      lastFailing = key;
    }
    // `?not_ready=404`: haproxy's graceful-drain convention (`http-check disable-on-404`): out of
    // rotation, its requests in flight left to finish; only a server that does not answer is cut
    // (docs/decisions/replicas.md#a-server-that-hangs).
    if (failing.length) res.status(req.query.not_ready === '404' ? 404 : 503).json({ status: 'unavailable', failing });
    else res.json({ status: 'ready' });
  });
  const logRequest = httpLogger(opts.logger);
  const timeRequest = (req: IncomingMessage, res: ServerResponse, route: () => string): void => {
    const end = duration.startTimer({ method: req.method });
    res.on('finish', () => end({ route: route(), status: String(res.statusCode) }));
  };
  const observe: ObserveRequest = (req, res, route) => {
    logRequest(req, res);
    timeRequest(req, res, () => route);
  };
  app.locals[OBSERVE] = observe;
  app.use(logRequest);
  app.use(discardUnreadBody);
  app.use((req, res, next) => {
    // Handlers that match paths themselves (no express route) name their pattern in res.locals.routeLabel.
    timeRequest(req, res, () => routeLabelOf(req, res));
    next();
  });
  if (opts.internalSecret) {
    const secret = opts.internalSecret;
    app.use((req, res, next) => {
      try {
        res.locals.identity = decodeIdentity(req.headers, secret);
        next();
      } catch (err) {
        next(err);
      }
    });
  }
  // The nesting limit is checked on the raw text before JSON.parse (docs/decisions/json-nesting-limit.md).
  if (opts.json !== false) app.use(express.json({ limit: JSON_LIMIT, verify: refuseDeepJson }), refuseNulInBody);
  return app;
}

/**
 * A request body a handler began to read and then left (git refusing a pack over its limit) is
 * read to its end and dropped once the answer is out. node does that for a body nobody touched;
 * one left mid-way kept the parser waiting instead, so the next request on the same kept-alive
 * connection (the gateway's, on behalf of another client) was never read, and the connection was
 * reset when it timed out. A body still being read (the gateway streaming it on) is left to its reader.
 */
export function discardUnreadBody(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  // After the handler's own 'close' listeners, which let go of what they were piping the body into.
  res.once('close', () => setImmediate(() => {
    if (!req.complete && !req.destroyed && req.listenerCount('data') === 0) req.resume();
  }));
  next();
}

/**
 * 408 `Request timeout` for a client that stopped sending its body part way, and the connection
 * closed once the answer is out: whatever else the handler still writes (a git process's late
 * output) goes nowhere, instead of after the end of an answer.
 */
export function answerRequestTimeout(res: ServerResponse): void {
  const error = requestTimeout();
  const body = JSON.stringify(errorBody(error));
  res.once('finish', () => res.destroy());
  res.writeHead(httpStatusOf(error.kind), { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/** Logs and times one request answered outside the app's router (its request id, log line and
 *  latency as every other request has them); `route` is the metrics label. */
export type ObserveRequest = (req: IncomingMessage, res: ServerResponse, route: string) => void;

const OBSERVE = 'githostObserveRequest';

/** The app's request log and latency histogram, for a handler that answers before the app runs. */
export function requestObserver(app: Express): ObserveRequest {
  return app.locals[OBSERVE] as ObserveRequest;
}

/** The metrics label of a request's route: a pattern, never the raw path (ids and file paths
 *  would explode the label set); with the prefix a router is mounted at. */
function routeLabelOf(req: Request, res: Response): string {
  const named = res.locals.routeLabel as unknown;
  if (typeof named === 'string') return named;
  return req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
}

/** The identity the gateway signed for this request. */
export function identityOf(res: Response): Identity {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity) throw new AppError('internal', 'identity middleware not installed');
  return identity;
}

/** Wraps an async handler so a rejection reaches the error handler. */
export function route(handler: (req: Request, res: Response) => Promise<unknown> | unknown): RequestHandler {
  return (req, res, next) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch(next);
  };
}

/** The one HTTP error handler: AppError kinds through the table, body-parser errors as CONTRACT §4 says. */
export const errorHandler: ErrorRequestHandler = (err: unknown, req, res, _next: NextFunction) => {
  const appError = libraryError(err) ?? toAppError(err);
  if (appError.kind === 'internal' || appError.kind === 'unavailable') {
    (req as Request & { log?: Logger }).log?.error({ err: (appError.cause as Error | undefined) ?? appError }, 'request failed');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(httpStatusOf(appError.kind)).json(errorBody(appError));
};

/** What the body parser and the router report (http-errors with a 4xx status) as an AppError. */
function libraryError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return undefined;
  const e = err as { type?: string; status?: number; code?: unknown; charset?: string; encoding?: string } | undefined;
  const kind = typeof e?.status === 'number' ? kindOfHttpStatus(e.status) : undefined;
  if (!e || !kind) return undefined;
  switch (e.type) {
    case 'entity.parse.failed':
      return new AppError('validation', 'Invalid JSON body');
    case 'entity.too.large':
      return new AppError('too_large', 'Request body too large');
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', `Unsupported charset "${String(e.charset).toUpperCase()}"`);
    case 'encoding.unsupported':
      return new AppError('unsupported_media_type', `Unsupported Content-Encoding: ${String(e.encoding)}`);
  }
  // The router could not decode a path parameter.
  if (err instanceof URIError) return new AppError('validation', 'Malformed percent-encoding in the path');
  // zlib on a body that claims gzip or deflate and is not.
  if (typeof e.code === 'string' && e.code.startsWith('Z_')) return new AppError('validation', 'Malformed compressed request body (Content-Encoding)');
  return new AppError(kind, kind === 'validation' ? 'Invalid request' : 'Request refused');
}

/** Adds the JSON 404 for unknown routes and the error handler; call after all routes. */
export function finish(app: Express): Express {
  app.use((_req, _res, next) => next(notFound('Not found')));
  app.use(errorHandler);
  return app;
}

export interface Listening {
  server: Server;
  port: number;
  /** Stops accepting, lets requests in flight finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

export function listen(app: Express | ((req: never, res: never) => void), port: number, host = '0.0.0.0'): Promise<Listening> {
  return new Promise((resolve, reject) => {
    // The gateway admits a 16 KiB URL and 16 KiB of header fields, then adds the signed identity.
    const server: Server = createServer({ maxHeaderSize: SERVICE_HEADER_LIMIT }, app as Express).listen(port, host);
    server.once('error', reject);
    server.once('listening', () => resolve(listening(server)));
  });
}

/** A listening server as a `Listening`: its port and a graceful close. */
export function listening(server: Server): Listening {
  const address = server.address() as AddressInfo | null;
  if (!address || typeof address !== 'object') throw new Error('the server is not listening');
  return {
    server,
    port: address.port,
    close: (graceMs = 10_000) =>
      new Promise<void>((done) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          done();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * Several registries as one exposition, one family per metric name. Names differ by service
 * (`githost_<service>_*`); series that are the same in two registries (git-storage shards run in
 * one process) are added up.
 */
export async function metricsText(registries: readonly client.Registry[]): Promise<string> {
  if (registries.length === 1) return registries[0]!.metrics();
  const merged = client.AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON())));
  return merged.metrics();
}

/** GET /metrics of the registries; anything else is a JSON 404. */
function metricsApp(registries: () => readonly client.Registry[]): Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/metrics', route(async (_req, res) => {
    res.type(client.Registry.PROMETHEUS_CONTENT_TYPE).send(await metricsText(registries()));
  }));
  return finish(app);
}

/**
 * One /metrics listener on the metrics port that the services of one process share (the
 * launcher's embedded mode): each service adds its registry while it runs.
 */
export class MetricsEndpoint {
  private readonly registries = new Set<client.Registry>();
  private listening: Listening | undefined;

  async listen(port: number, host = '0.0.0.0'): Promise<Listening> {
    this.listening = await bindingPort('METRICS_PORT', port, () => listen(metricsApp(() => [...this.registries]), port, host));
    return this.listening;
  }

  /** Serves `registry` until the returned `close()`. */
  add(registry: client.Registry): MetricsListening {
    if (!this.listening) throw new Error('the metrics endpoint is not listening');
    this.registries.add(registry);
    return { port: this.listening.port, close: async () => void this.registries.delete(registry) };
  }

  close(): Promise<void> {
    return this.listening?.close(1_000) ?? Promise.resolve();
  }
}

export interface MetricsListening {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `registry` at GET /metrics on the metrics port, a listener of its own: never the public
 * port (CONTRACT §8). With a shared endpoint (embedded mode), adds the registry to it instead.
 */
export async function serveMetrics(registry: client.Registry, port: number, host = '0.0.0.0', shared?: MetricsEndpoint): Promise<MetricsListening> {
  if (shared) return shared.add(registry);
  const listening = await bindingPort('METRICS_PORT', port, () => listen(metricsApp(() => [registry]), port, host));
  return { port: listening.port, close: () => listening.close(1_000) };
}

export interface ServingHttp {
  ports: { httpPort: number; metricsPort: number };
  /** Closes both listeners; requests in flight finish first. */
  close(): Promise<void>;
}

/**
 * A service's HTTP side started: its app on the public port and its registry at /metrics on the
 * metrics port (or the shared endpoint, embedded mode), logged as `<service> listening`.
 */
export async function serveHttp(
  app: Express,
  registry: client.Registry,
  config: { httpPort: number; metricsPort: number; bindHost?: string },
  options: { service: string; logger: Logger; metricsEndpoint?: MetricsEndpoint | undefined },
): Promise<ServingHttp> {
  const http = await bindingPort('HTTP_PORT', config.httpPort, () => listen(app, config.httpPort, config.bindHost));
  let metrics: MetricsListening;
  try {
    metrics = await serveMetrics(registry, config.metricsPort, config.bindHost, options.metricsEndpoint);
  } catch (err) {
    await http.close();
    throw err;
  }
  options.logger.info({ http_port: http.port }, `${options.service} listening`);
  return {
    ports: { httpPort: http.port, metricsPort: metrics.port },
    close: async () => void (await Promise.all([http.close(), metrics.close()])),
  };
}
