import { ConfigError } from '@githost/config';
import { createLogger } from '@githost/logging';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('accounts');

async function main(): Promise<void> {
  const service = createServer(loadConfig(), { logger });
  await service.start();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  // A bad variable is the operator's to fix: say which, without a stack trace.
  if (err instanceof ConfigError) process.stderr.write(`${err.message}\n`);
  else logger.fatal({ err }, 'accounts failed to start');
  process.exit(1);
});
