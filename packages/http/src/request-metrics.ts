import client from 'prom-client';

/**
 * The metrics every service's HTTP port keeps, in a module of their own (prom-client only) so a
 * service that answers HTTP without express, the SSH service's internal port, keeps the very same
 * registry labels and request histogram (docs/decisions/ssh-server.md#memory).
 */

/** Metrics registry per service so several services can live in one process. */
export function createRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  return registry;
}

/** `githost_<service>_http_request_duration_seconds`: each request's latency by method, route and status. */
export function requestDurationHistogram(service: string, registry: client.Registry): client.Histogram<'method' | 'route' | 'status'> {
  return new client.Histogram({
    name: `githost_${service.replace(/-/g, '_')}_http_request_duration_seconds`,
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10],
    registers: [registry],
  });
}
