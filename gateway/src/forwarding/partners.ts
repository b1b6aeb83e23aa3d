import type { Logger } from '@githost/logging';
import { PartnerCheck } from '@githost/api-client/partner-check';
import type { Config, UpstreamName } from '../config.js';
import type { GatewayMetrics } from '../metrics.js';

/**
 * A health check of each upstream the gateway calls directly with a fallback behind it (the
 * launcher's replicas: web N's own port, docs/decisions/replicas.md#a-partner-that-hangs): haproxy
 * checks the servers of its sections, nothing checked this pairing, so a web replica that hangs
 * without dying took each page to the forwarding's timeout. Without a fallback, none.
 */
export function createPartnerChecks(config: Pick<Config, 'upstreams' | 'fallbacks'>, logger: Logger, metrics?: Pick<GatewayMetrics, 'upstreamPartnerDown'>): Map<UpstreamName, PartnerCheck> {
  const checks = new Map<UpstreamName, PartnerCheck>();
  for (const [name, fallback] of Object.entries(config.fallbacks ?? {}) as [UpstreamName, string | undefined][]) {
    const target = config.upstreams[name];
    if (!fallback || !target) continue;
    metrics?.upstreamPartnerDown.set({ upstream: name }, 0);
    checks.set(name, new PartnerCheck({ url: target, name, logger, onChange: (up) => metrics?.upstreamPartnerDown.set({ upstream: name }, up ? 0 : 1) }));
  }
  return checks;
}
