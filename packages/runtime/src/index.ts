import { ConfigError } from '@githost/config';
import { createLogger, type Logger } from '@githost/logging';

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
  let running: Stoppable;
  try {
    running = await boot(logger);
  } catch (err) {
    if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
    else logger.fatal({ err }, `${name} could not start`);
    process.exit(1);
  }
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping: finishing requests in flight');
    running.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}
