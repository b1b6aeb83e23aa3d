import { ConfigError } from '@githost/config/errors';
import { createLogger, type Logger } from '@githost/logging';
import { drainDelay, markStopping, shutdownDelayMs } from './stopping.js';

export type { Service, ServiceModule, ServicePorts } from './service.js';
export { isStopping, onStopping } from './stopping.js';

/**
 * Whatever this process and its children (git, PGlite) create is the service user's alone:
 * directories 0700, files 0600 (docs/operating.md#files-under-data_dir). Child processes inherit the umask.
 */
export function privateFileModes(): void {
  process.umask(0o077);
}

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * The one way a githost process runs (every `main.ts`): boot, then on SIGTERM or SIGINT stop
 * gracefully and exit 0: readiness says "not serving" at once, requests keep being served for
 * GITHOST_SHUTDOWN_DELAY_MS (so load balancers route around the process first), then the service
 * stops and requests in flight finish (docs/operating.md#stopping-a-process). A bad configuration stops the process at
 * boot with the message naming each variable (exit 1, no stack); any other boot failure is
 * logged as fatal (exit 1).
 */
export async function runUntilSignalled(name: string, boot: (logger: Logger) => Promise<Stoppable>, logger: Logger = createLogger(name)): Promise<void> {
  privateFileModes();
  const delayMs = shutdownDelayMs();
  if (typeof delayMs !== 'number') {
    process.stderr.write(`${delayMs.error}\n`);
    process.exit(1);
  }
  // Handlers go in before boot: a signal that arrives while starting stops the process as soon as
  // it has started, instead of killing it half-started.
  let running: Stoppable | undefined;
  let requested: NodeJS.Signals | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals, service: Stoppable) => {
    if (stopping) return;
    stopping = true;
    markStopping();
    logger.info({ signal, delayMs }, 'stopping: not ready, finishing requests in flight');
    const stopped = drainDelay(delayMs).elapsed.then(() => service.stop());
    stopped.then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (running) stop(signal, running);
    else requested ??= signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    running = await boot(logger);
  } catch (err) {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else logger.fatal({ err }, `${name} could not start`);
    process.exit(1);
  }
  if (requested) stop(requested, running);
}
export { DEFAULT_LOOP_BUDGET_MS, LoopBudget, yieldToEventLoop } from './event-loop.js';
