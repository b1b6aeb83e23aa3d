import { createLogger } from '@githost/logging';
import { loadConfig } from './config.js';
import { createServer } from './server.js';

const logger = createLogger('git-storage');
const service = createServer(loadConfig(), { logger });
await service.start();

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'git-storage stopping');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'git-storage stop failed');
        process.exit(1);
      },
    );
  });
}
