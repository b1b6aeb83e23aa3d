import client from 'prom-client';
import type { ConsumerMetrics } from '../consumer/event-consumer.js';
import type { DeliveryStore } from '../domain/ports.js';
import type { DeliveryMetrics } from './delivery-worker.js';

export type WebhooksMetrics = DeliveryMetrics & ConsumerMetrics;

export function deliveryMetrics(registry: client.Registry, deliveries?: Pick<DeliveryStore, 'countPending'>): WebhooksMetrics {
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
  const lag = new client.Histogram({
    name: 'githost_webhooks_event_lag_seconds',
    help: 'Queue lag: time from the change (event occurred_at) until its deliveries were recorded',
    buckets: [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300],
    registers: [registry],
  });
  if (deliveries) {
    new client.Gauge({
      name: 'githost_webhooks_deliveries_pending',
      help: 'Deliveries not finished yet (first attempts and scheduled retries)',
      registers: [registry],
      // Read at scrape time, so every replica reports the shared table's backlog.
      async collect() {
        this.set(await deliveries.countPending());
      },
    });
  }
  return {
    attempt(outcome, durationMs) {
      attempts.inc({ outcome });
      duration.observe(durationMs / 1000);
    },
    eventRecorded(lagSeconds) {
      lag.observe(lagSeconds);
    },
  };
}
