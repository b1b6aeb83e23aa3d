import { createLogger } from '@githost/logging';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('merge-requests');
const service = createServer(loadConfig(), { logger });
await service.start();

let stopping = false;
const shutdown = (signal: string) => {
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
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
