import client from 'prom-client';
import type { DeliveryMetrics } from './delivery-worker.js';

export function deliveryMetrics(registry: client.Registry): DeliveryMetrics {
  const attempts = new client.Counter({
    name: 'githost_webhooks_delivery_attempts_total',
    help: 'Webhook delivery attempts by what followed them',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'githost_webhooks_delivery_attempt_duration_seconds',
    help: 'Time from sending a delivery to the end of the receiver answer',
    buckets: [0.005, 0.01, 0.03, 0.1, 0.3, 1, 3, 10],
    registers: [registry],
  });
  return {
    attempt(outcome, durationMs) {
      attempts.inc({ outcome });
      duration.observe(durationMs / 1000);
    },
  };
}
