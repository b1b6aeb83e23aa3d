/**
 * Whether this process is stopping: set once, when SIGTERM or SIGINT arrives, before anything
 * closes. From then on every readiness answer says "not serving" (HTTP /readyz 503, gRPC health
 * NOT_SERVING) while requests keep being served for the drain delay, so a load balancer or
 * Kubernetes' endpoints stop sending new requests before the listener closes
 * (docs/operating.md#stopping-a-process). Process-wide on purpose: in the embedded mode every
 * service in the process stops together. No imports, so the lightest process can carry it.
 */
let stopping = false;
const listeners = new Set<() => void>();

export function isStopping(): boolean {
  return stopping;
}

/** Calls `listener` when the process starts stopping (at once if it already is); returns its removal. */
export function onStopping(listener: () => void): () => void {
  if (stopping) {
    listener();
    return () => undefined;
  }
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function markStopping(): void {
  if (stopping) return;
  stopping = true;
  for (const listener of listeners) listener();
  listeners.clear();
}

/** Longest drain delay accepted: well inside Kubernetes' default 30 s termination grace. */
export const MAX_SHUTDOWN_DELAY_MS = 25_000;

/**
 * GITHOST_SHUTDOWN_DELAY_MS: how long a stopping process keeps serving, not ready, before it closes
 * its listeners (default 0: nothing routes around a single process). A bad value is a message
 * naming the variable, as every configuration error is.
 */
export function shutdownDelayMs(env: NodeJS.ProcessEnv = process.env): number | { error: string } {
  const raw = env.GITHOST_SHUTDOWN_DELAY_MS;
  if (raw === undefined || raw === '') return 0;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value > MAX_SHUTDOWN_DELAY_MS) return { error: `GITHOST_SHUTDOWN_DELAY_MS: expected whole milliseconds from 0 to ${MAX_SHUTDOWN_DELAY_MS}, got "${raw}"` };
  return value;
}

/**
 * The drain's wait (GITHOST_SHUTDOWN_DELAY_MS, docs/operating.md#stopping-a-process): `elapsed`
 * resolves after `ms`, or at once when `end` is called (a launcher stopping everything needs no
 * drain: its load balancer stopped first). The one wait of every githost process's stop.
 */
export function drainDelay(ms: number): { elapsed: Promise<void>; end(): void } {
  let end = (): void => {};
  const elapsed =
    ms > 0
      ? new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          end = () => {
            clearTimeout(timer);
            resolve();
          };
        })
      : Promise.resolve();
  return { elapsed, end: () => end() };
}
