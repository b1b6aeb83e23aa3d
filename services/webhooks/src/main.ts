import { createLogger } from '@githost/logging';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('webhooks');
const service = createServer(loadConfig(), { logger });
await service.start();

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
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
  });
}
