import type { Logger } from '@githost/logging';
import type { MergeMetrics } from './metrics.js';
import { reconcileMergeIntents, type ReconcileDeps } from './domain/reconcile.js';
import { INTENT_STALE_AFTER_MS } from './db/merge-request-store.js';

export interface RecoveryOptions {
  /** Intents idle this long belong to a merge that died: a live merge refreshes its intent every
   *  INTENT_HEARTBEAT_MS (the store's heartbeat), so five missed beats mean its process is gone. */
  graceMs?: number;
  intervalMs?: number;
}

const DEFAULT_GRACE_MS = INTENT_STALE_AFTER_MS;
const DEFAULT_INTERVAL_MS = 2_000;

/** Runs merge recovery at start-up and then periodically, one pass at a time. */
export function startRecoveryLoop(deps: ReconcileDeps, logger: Logger, opts: RecoveryOptions = {}, metrics?: MergeMetrics) {
  const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
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
  const timer = setInterval(() => void pass(), opts.intervalMs ?? DEFAULT_INTERVAL_MS);
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
