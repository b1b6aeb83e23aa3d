import { createLogger } from '@githost/logging';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('browse');
const server = createServer(loadConfig(), { logger });
await server.start();

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'browse stopping');
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'browse stop failed');
        process.exit(1);
      },
    );
  });
}
