import type { Logger } from '@githost/logging';
import type { MergeMetrics } from './metrics.js';
import { reconcileMergeIntents, type ReconcileDeps } from './domain/reconcile.js';

export interface RecoveryOptions {
  /** Intents idle this long belong to a merge that died: a live one plans within a few gRPC
   *  deadlines of its claim and moves the ref within one deadline (30 s) of planning. */
  graceMs?: number;
  intervalMs?: number;
}

/** Runs merge recovery at start-up and then periodically, one pass at a time. */
export function startRecoveryLoop(deps: ReconcileDeps, logger: Logger, opts: RecoveryOptions = {}, metrics?: MergeMetrics) {
  const graceMs = opts.graceMs ?? 120_000;
  let running: Promise<void> | null = null;
  const pass = () => {
    running ??= reconcileMergeIntents(deps, graceMs)
      .then((out) => {
        metrics?.recovered(out.completed.length, out.dropped.length);
        if (out.completed.length + out.dropped.length + out.deferred.length > 0) logger.info(out, 'merge recovery pass');
      })
      .catch((err: unknown) => logger.error({ err }, 'merge recovery pass failed'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void pass(), opts.intervalMs ?? 15_000);
  timer.unref();
  return {
    /** The start-up pass; awaited so a restarted service has finished old merges before serving. */
    first: pass(),
    pass,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
