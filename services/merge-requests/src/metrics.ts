import client from 'prom-client';
import { toAppError } from '@githost/errors';

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
    merged: (strategy: string) => merges.inc({ outcome: strategy }),
    failed: (err: unknown) => merges.inc({ outcome: toAppError(err).kind }),
    recovered: (completed: number, dropped: number) => {
      if (completed) recovered.inc({ action: 'completed' }, completed);
      if (dropped) recovered.inc({ action: 'dropped' }, dropped);
    },
  };
}

export type MergeMetrics = ReturnType<typeof mergeMetrics>;
