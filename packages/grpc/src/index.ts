import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { AppError, grpcCodeOf, kindOfGrpcCode, toAppError, unavailable } from '@githost/errors';
import type { Logger } from '@githost/logging';
import { releaseForBind } from '@githost/runtime/held-ports';
import { onStopping } from '@githost/runtime/stopping';
import { internalCallCheck } from './internal-call.js';
import { codeName, metricsInterceptor, methodOfPath, secondsSince, type GrpcMetrics } from './metrics.js';

export { grpc };
export { grpcServerMetrics, grpcClientMetrics, metricsInterceptor, type GrpcMetrics } from './metrics.js';

/** Metadata key carrying the request id from the gateway through every gRPC hop. */
export const REQUEST_ID_METADATA = 'x-request-id';

/** The AppError -> gRPC status edge (server side). Internal errors never leak their message. */
export function toServiceError(err: unknown): Partial<grpc.StatusObject> {
  const e = toAppError(err);
  const metadata = new grpc.Metadata();
  if (e.details) metadata.set('details-json', JSON.stringify(e.details));
  return { code: grpcCodeOf(e.kind), details: e.message, metadata };
}

/** The gRPC status -> AppError edge (client side), keeping message and details. */
export function fromServiceError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const s = err as Partial<grpc.ServiceError>;
  if (typeof s?.code !== 'number') return toAppError(err);
  const kind = kindOfGrpcCode(s.code);
  if (kind === 'unavailable') return unavailable(`upstream unavailable: ${s.details ?? ''}`.trim(), err);
  const raw = s.metadata?.get('details-json')[0];
  const details = typeof raw === 'string' ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
  return new AppError(kind, s.details || s.message || 'upstream error', details, { cause: err });
}

/** Server-side instruments for `unary`/`serverStream`: the per-call histogram (see grpcServerMetrics). */
export interface ServerInstruments {
  metrics?: GrpcMetrics;
}

/**
 * Ends one served call: the histogram by method and code, and one log line carrying the caller's
 * request id (as the HTTP edge does per request), so a request can be followed into this service.
 */
function finishCall(call: ServerCall, start: bigint, code: grpc.status, logger: Logger | undefined, instruments: ServerInstruments | undefined): void {
  const method = methodOfPath(call.getPath());
  const seconds = secondsSince(start);
  instruments?.metrics?.observe(method, code, seconds);
  logger?.info({ request_id: requestIdOfCall(call), method, code: codeName(code), duration_ms: Math.round(seconds * 1000) }, 'grpc call');
}

type ServerCall = { metadata: grpc.Metadata; getPath(): string };

/** Wraps an async unary handler: rejections become statuses through the one table. */
export function unary<Req, Res>(
  handler: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>,
  logger?: Logger,
  instruments?: ServerInstruments,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const start = process.hrtime.bigint();
    handler(call.request, call).then(
      (res) => {
        finishCall(call, start, grpc.status.OK, logger, instruments);
        callback(null, res);
      },
      (err: unknown) => {
        const e = toAppError(err);
        if (e.kind === 'internal') logger?.error({ err: e.cause ?? e, request_id: requestIdOfCall(call) }, 'grpc handler failed');
        const status = toServiceError(e);
        finishCall(call, start, status.code!, logger, instruments);
        callback(status as grpc.ServiceError);
      },
    );
  };
}

/** Wraps an async server-streaming handler; it writes to `call` and resolves when done. */
export function serverStream<Req, Res>(
  handler: (request: Req, call: grpc.ServerWritableStream<Req, Res>) => Promise<void>,
  logger?: Logger,
  instruments?: ServerInstruments,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const start = process.hrtime.bigint();
    handler(call.request, call).then(
      () => {
        finishCall(call, start, call.cancelled ? grpc.status.CANCELLED : grpc.status.OK, logger, instruments);
        call.end();
      },
      (err: unknown) => {
        const e = toAppError(err);
        if (e.kind === 'internal') logger?.error({ err: e.cause ?? e, request_id: requestIdOfCall(call) }, 'grpc stream failed');
        const status = toServiceError(e);
        finishCall(call, start, call.cancelled ? grpc.status.CANCELLED : status.code!, logger, instruments);
        // grpc-js turns an 'error' event into the trailing status; destroy() would end the call
        // without one and leave the client waiting forever.
        if (!call.cancelled) call.emit('error', Object.assign(new Error(e.message), status));
      },
    );
  };
}

/** Instruments a hand-written unary handler (one that maps some status itself) like `unary` does. */
export function instrumentUnary<Req, Res>(handler: grpc.handleUnaryCall<Req, Res>, logger?: Logger, instruments?: ServerInstruments): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const start = process.hrtime.bigint();
    handler(call, ((err: Partial<grpc.StatusObject> | null, ...rest: unknown[]) => {
      finishCall(call, start, err ? (err.code ?? grpc.status.UNKNOWN) : grpc.status.OK, logger, instruments);
      (callback as (...args: unknown[]) => void)(err, ...rest);
    }) as grpc.sendUnaryData<Res>);
  };
}

export function requestIdOfCall(call: { metadata: grpc.Metadata }): string | undefined {
  const v = call.metadata.get(REQUEST_ID_METADATA)[0];
  return typeof v === 'string' ? v : undefined;
}

export function metadataFor(requestId?: string): grpc.Metadata {
  const m = new grpc.Metadata();
  if (requestId) m.set(REQUEST_ID_METADATA, requestId);
  return m;
}

/** The generated clients' last overload, `(request, callback)`: matching it lets TypeScript infer
 *  the response type from `client.Method`; the call itself passes metadata and a deadline too. */
type UnaryMethod<Req, Res> = (request: Req, callback: grpc.requestCallback<Res>) => unknown;
type FullUnaryMethod<Req, Res> = (request: Req, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<Res>) => unknown;

export interface ClientCallOptions {
  /** Sent as `x-request-id` metadata so the server logs the caller's request id. */
  requestId?: string;
  timeoutMs?: number;
  /** Times the call into the caller's `githost_<service>_grpc_client_handled_seconds`. */
  metrics?: GrpcMetrics;
}

/** Call options (deadline, metrics interceptor) for calls made directly on a client, e.g.
 *  streams: `client.ReadBlob(req, metadataFor(requestId), callOptions({ metrics }))`. */
export function callOptions(opts: Omit<ClientCallOptions, 'requestId'> = {}): grpc.CallOptions {
  const options: grpc.CallOptions = {};
  if (opts.timeoutMs !== undefined) options.deadline = Date.now() + opts.timeoutMs;
  if (opts.metrics) options.interceptors = [metricsInterceptor(opts.metrics)];
  return options;
}

/** Promise form of a unary client call with a deadline; statuses come back as AppErrors. */
export function callUnary<Req, Res>(client: grpc.Client, method: UnaryMethod<Req, Res>, request: Req, opts: ClientCallOptions = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    const options = callOptions({ timeoutMs: opts.timeoutMs ?? 30_000, metrics: opts.metrics });
    (method as unknown as FullUnaryMethod<Req, Res>).call(client, request, metadataFor(opts.requestId), options, (err, res) => {
      if (err) reject(fromServiceError(err));
      else resolve(res as Res);
    });
  });
}

/**
 * Whether `client`'s channel connects within `withinMs`: a readiness probe's answer for a gRPC
 * dependency. Never throws; a channel that cannot connect in time is simply not ready.
 */
export function waitForReady(client: Pick<grpc.Client, 'waitForReady'>, withinMs: number): Promise<boolean> {
  return new Promise((resolve) => client.waitForReady(Date.now() + withinMs, (err) => resolve(!err)));
}

/** Collects a server stream into an array (for bounded streams); errors come back as AppErrors. */
export function collectStream<T>(stream: NodeJS.ReadableStream & { cancel?: () => void }): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const out: T[] = [];
    stream.on('data', (m: T) => out.push(m));
    stream.on('error', (err) => reject(fromServiceError(err)));
    stream.on('end', () => resolve(out));
  });
}

export interface GrpcListening {
  server: grpc.Server;
  port: number;
  /** Health answers NOT_SERVING at once, then in-flight calls finish (up to `graceMs`). */
  close(graceMs?: number): Promise<void>;
}

/**
 * Binds a server with the given services plus the standard `grpc.health.v1.Health` service
 * (what Kubernetes gRPC probes and grpc_health_probe speak), SERVING for '' and `healthNames`
 * until close(). `port` 0 picks a free port. Every call but health checks must be signed with
 * `internalSecret` (GITHOST_INTERNAL_SECRET); others get UNAUTHENTICATED before any handler runs.
 */
export function startGrpcServer(register: (server: grpc.Server) => void, port: number, host: string, healthNames: string[], internalSecret: string): Promise<GrpcListening> {
  const server = new grpc.Server({
    interceptors: [internalCallCheck(internalSecret)],
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
    'grpc.max_send_message_length': 64 * 1024 * 1024,
    // Nothing reads channelz; with it on, every call pays for its counters and timestamps.
    'grpc.enable_channelz': 0,
  });
  register(server);
  const names = ['', ...healthNames];
  const health = new HealthImplementation(Object.fromEntries(names.map((n) => [n, 'SERVING'])));
  health.addToServer(server);
  // A stopping process answers NOT_SERVING while it drains (docs/operating.md#stopping-a-process).
  const notServing = () => {
    for (const n of names) health.setStatus(n, 'NOT_SERVING');
  };
  const forgetStopping = onStopping(notServing);
  // A port the launcher reserved for this server is freed only now (packages/runtime/src/held-ports.ts).
  return releaseForBind(port).then(() => new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, actual) => {
      if (err) {
        forgetStopping();
        return reject(err);
      }
      resolve({
        server,
        port: actual,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            forgetStopping();
            notServing();
            const timer = setTimeout(() => {
              server.forceShutdown();
              done();
            }, graceMs);
            timer.unref();
            server.tryShutdown(() => {
              clearTimeout(timer);
              done();
            });
          }),
      });
    });
  }));
}
