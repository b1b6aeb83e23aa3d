import * as grpc from '@grpc/grpc-js';
import client from 'prom-client';

/** Records one finished gRPC call: its method (`ReadTree`), status code and duration. */
export interface GrpcMetrics {
  observe(method: string, code: grpc.status, seconds: number): void;
}

const BUCKETS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10];

/** `githost_<service>_grpc_server_handled_seconds{method,code}` on the service's registry. */
export function grpcServerMetrics(registry: client.Registry, service: string): GrpcMetrics {
  return handledHistogram(registry, service, 'server', 'gRPC calls this service answered, by method and status code');
}

/** `githost_<service>_grpc_client_handled_seconds{method,code}` on the service's registry. */
export function grpcClientMetrics(registry: client.Registry, service: string): GrpcMetrics {
  return handledHistogram(registry, service, 'client', 'gRPC calls this service made, by method and status code');
}

function handledHistogram(registry: client.Registry, service: string, side: 'server' | 'client', help: string): GrpcMetrics {
  const name = `githost_${service.replace(/-/g, '_')}_grpc_${side}_handled_seconds`;
  // One histogram per registry however many clients a service builds (one per upstream or shard).
  const histogram =
    (registry.getSingleMetric(name) as client.Histogram<'method' | 'code'> | undefined) ??
    new client.Histogram({ name, help, labelNames: ['method', 'code'], buckets: BUCKETS, registers: [registry] });
  return { observe: (method, code, seconds) => histogram.observe({ method, code: codeName(code) }, seconds) };
}

/** `NOT_FOUND` rather than `5`: the label reads the same as the status in logs and docs. */
export function codeName(code: grpc.status): string {
  return grpc.status[code] ?? String(code);
}

/** `/githost.storage.v1.StorageService/ReadTree` -> `ReadTree`. */
export function methodOfPath(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const interceptors = new WeakMap<GrpcMetrics, grpc.Interceptor>();

/** A client interceptor timing every call (unary and streaming) until its status arrives. */
export function metricsInterceptor(metrics: GrpcMetrics): grpc.Interceptor {
  let interceptor = interceptors.get(metrics);
  if (!interceptor) {
    interceptor = (options, nextCall) => {
      const method = methodOfPath(options.method_definition.path);
      const start = process.hrtime.bigint();
      const requester = new grpc.RequesterBuilder()
        .withStart((metadata, listener, next) => {
          const timed = new grpc.ListenerBuilder()
            .withOnReceiveStatus((status, nextStatus) => {
              metrics.observe(method, status.code, secondsSince(start));
              nextStatus(status);
            })
            .build();
          next(metadata, timed);
        })
        .build();
      return new grpc.InterceptingCall(nextCall(options), requester);
    };
    interceptors.set(metrics, interceptor);
  }
  return interceptor;
}
