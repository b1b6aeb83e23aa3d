import client from 'prom-client';
import type { Relay } from '@githost/bus';
import { toAppError } from '@githost/errors';
import { grpcClientMetrics } from '@githost/grpc';

/** Merge outcomes and recovery actions, beside the shared HTTP metrics. */
export function mergeMetrics(registry: client.Registry) {
  const merges = new client.Counter({
    name: 'githost_merge_requests_merges_total',
    help: 'Merge attempts by outcome: the strategy on success, the error kind otherwise',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const recovered = new client.Counter({
    name: 'githost_merge_requests_recovered_merges_total',
    help: 'Interrupted merges found by recovery: completed (the ref had moved) or dropped',
    labelNames: ['action'],
    registers: [registry],
  });
  return {
    /** Calls to git-storage and accounts, by method and code. */
    grpcClient: grpcClientMetrics(registry, 'merge-requests'),
    merged: (strategy: string) => merges.inc({ outcome: strategy }),
    failed: (err: unknown) => merges.inc({ outcome: toAppError(err).kind }),
    recovered: (completed: number, dropped: number) => {
      if (completed) recovered.inc({ action: 'completed' }, completed);
      if (dropped) recovered.inc({ action: 'dropped' }, dropped);
    },
  };
}

/** `githost_merge_requests_outbox_backlog_events`: events committed with their state change but
 *  not yet published. Read at scrape time; growth means the bus is down or refusing. */
export function outboxBacklogGauge(registry: client.Registry, relay: Pick<Relay, 'backlog'>): void {
  new client.Gauge({
    name: 'githost_merge_requests_outbox_backlog_events',
    help: 'Outbox events not yet published to the bus',
    registers: [registry],
    async collect() {
      this.set(await relay.backlog());
    },
  });
}

export type MergeMetrics = ReturnType<typeof mergeMetrics>;
