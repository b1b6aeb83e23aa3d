import { ConfigError } from '@githost/config/errors';
import { createLogger, type Logger } from '@githost/logging';

export type { Service, ServiceModule, ServicePorts } from './service.js';

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
 * gracefully (requests in flight finish) and exit 0. A bad configuration stops the process at
 * boot with the message naming each variable (exit 1, no stack); any other boot failure is
 * logged as fatal (exit 1).
 */
export async function runUntilSignalled(name: string, boot: (logger: Logger) => Promise<Stoppable>, logger: Logger = createLogger(name)): Promise<void> {
  privateFileModes();
  // Handlers go in before boot: a signal that arrives while starting stops the process as soon as
  // it has started, instead of killing it half-started.
  let running: Stoppable | undefined;
  let requested: NodeJS.Signals | undefined;
  let stopping = false;
  const stop = (signal: NodeJS.Signals, service: Stoppable) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing requests in flight');
    service.stop().then(
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
