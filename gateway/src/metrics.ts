import client from 'prom-client';
import { grpcClientMetrics, type GrpcMetrics } from '@githost/grpc';
import { createRegistry } from '@githost/http';

/** Gateway metrics beside the shared request histogram (whose route label the gateway, having
 *  no express routes, cannot fill): where requests went, what the edge refused, cache hits. */
export interface GatewayMetrics {
  registry: client.Registry;
  forwarded: client.Counter<'upstream' | 'status'>;
  refused: client.Counter<'status'>;
  accountsCache: client.Counter<'cache' | 'result'>;
  /** Conditional browse reads answered 304 by the gateway (hit) or forwarded (miss). */
  edgeValidators: client.Counter<'result'>;
  /** Browse reads answered from a kept answer (hit) or forwarded to browse (miss). */
  edgeAnswers: client.Counter<'result'>;
  /** Reads sent once more after their upstream connection failed unanswered (forwarding/read-retry.ts). */
  upstreamRetries: client.Counter<'upstream'>;
  /** 1 while a paired upstream (the web's own replica) fails its health checks and new requests
   *  go to its fallback (forwarding/partners.ts), else 0. */
  upstreamPartnerDown: client.Gauge<'upstream'>;
  /** Authenticate/Authorize calls to accounts by method and code (cache misses only). */
  grpcClient: GrpcMetrics;
}

/** The bytes the edge's kept answers hold, read at scrape time. */
export function gaugeEdgeAnswerBytes(metrics: GatewayMetrics, bytes: () => number): void {
  new client.Gauge({
    name: 'githost_gateway_edge_answers_bytes',
    help: 'Bytes held by the browse answers kept at the edge (bodies, keys, headers)',
    registers: [metrics.registry],
    collect() {
      this.set(bytes());
    },
  });
}

export function createGatewayMetrics(): GatewayMetrics {
  const registry = createRegistry('gateway');
  return {
    registry,
    forwarded: new client.Counter({ name: 'githost_gateway_forwarded_requests_total', help: 'Requests forwarded, by upstream service and response status', labelNames: ['upstream', 'status'], registers: [registry] }),
    refused: new client.Counter({ name: 'githost_gateway_refused_requests_total', help: 'Requests answered by the gateway itself (401, 403, 404, 413, 503)', labelNames: ['status'], registers: [registry] }),
    accountsCache: new client.Counter({ name: 'githost_gateway_accounts_cache_total', help: 'Authenticate and Authorize answers served from the cache or asked of accounts', labelNames: ['cache', 'result'], registers: [registry] }),
    edgeValidators: new client.Counter({ name: 'githost_gateway_edge_validators_total', help: 'Conditional browse reads answered 304 at the edge (hit) or forwarded to browse (miss)', labelNames: ['result'], registers: [registry] }),
    edgeAnswers: new client.Counter({ name: 'githost_gateway_edge_answers_total', help: 'Browse reads answered from an answer kept at the edge (hit) or forwarded to browse (miss)', labelNames: ['result'], registers: [registry] }),
    upstreamRetries: new client.Counter({ name: 'githost_gateway_upstream_retries_total', help: 'GET and HEAD requests sent once more on a new connection after the upstream connection was refused, reset or closed before any answer', labelNames: ['upstream'], registers: [registry] }),
    upstreamPartnerDown: new client.Gauge({ name: 'githost_gateway_upstream_partner_down', help: 'Whether a paired upstream failed its health checks (1), its new requests sent to the fallback, or answers them (0)', labelNames: ['upstream'], registers: [registry] }),
    grpcClient: grpcClientMetrics(registry, 'gateway'),
  };
}
